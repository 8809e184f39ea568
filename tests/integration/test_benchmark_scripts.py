"""The benchmark scripts refuse what they cannot measure with one line and exit code 2, before
building or compiling anything: here, --device cuda on a machine whose torch sees no GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the scripts would run")
@pytest.mark.parametrize("script", ["cpu_ops.py", "model_latency.py"])
def test_cuda_without_a_gpu_is_one_line_and_exit_2(script, tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), "--device", "cuda", "--runtime",
                           str(tmp_path / "never-built.so")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip() and "Warning" not in line]
    assert len(lines) == 1 and "--device cuda" in lines[0] and "GPU machine" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not done.stdout.strip()
