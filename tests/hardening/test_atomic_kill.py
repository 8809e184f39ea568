"""Atomic output under a real kill: a `shimgen generate` SIGKILLed between writing its temporary
file and renaming it over the output leaves every old output intact, and the leftover temporary
file is never taken for an output (not by generate --check, not by check-symbols walking the
directory, not by the build's artifact scan: it is a dot-file ending in .tmp)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support import REPO, run_shimgen

# Runs in the child: os.replace pauses forever once the temporary file is complete and fsynced,
# so the parent can kill the process at the worst moment, deterministically.
CHILD = textwrap.dedent("""
    import os, sys, time
    import shimgen.files
    def paused_replace(src, dst):
        print("PAUSED", src, dst, flush=True)
        time.sleep(600)
    shimgen.files.os.replace = paused_replace
    from shimgen.cli import main
    sys.exit(main(sys.argv[1:]))
""")

CONFIG = 'prefix = "{prefix}"\nsymbols = ["aoti_torch_empty_strided", "aoti_torch_delete_tensor_object"]\n'


def _outputs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if not p.name.startswith(".")}


def test_generator_killed_mid_write_leaves_old_outputs(tmp_path):
    config = tmp_path / "shimgen.toml"
    config.write_text(CONFIG.format(prefix="old_"))
    out = tmp_path / "out"
    first = run_shimgen("generate", "-c", config, "-o", out)
    assert first.returncode == 0, first.stderr
    before = _outputs(out)
    assert len(before) >= 5 and b'"old_"' in before["manifest.json"]

    config.write_text(CONFIG.format(prefix="new_"))
    child = subprocess.Popen([sys.executable, "-c", CHILD, "generate", "-c", str(config), "-o", str(out)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = child.stdout.readline()
        assert line.startswith("PAUSED"), line + child.stderr.read()
        _, tmp_name, target = line.split()
        temporary = Path(tmp_name)
        assert temporary.is_file() and b"new_" in temporary.read_bytes()  # the new bytes were complete
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    # Every output still holds exactly its old bytes; the half-done write is only a stray temp file.
    assert _outputs(out) == before
    leftovers = [p for p in out.iterdir() if p.name.startswith(".")]
    assert temporary in leftovers and Path(target).name in temporary.name
    assert all(p.name.endswith(".tmp") for p in leftovers)  # every output was staged before any rename

    # The old config still matches the outputs: the temporary is not an output...
    config.write_text(CONFIG.format(prefix="old_"))
    assert run_shimgen("generate", "--check", "-c", config, "-o", out).returncode == 0
    # ...nor a binary check-symbols reads from the directory, nor a library the build reports.
    walked = run_shimgen("check-symbols", out, "--prefix", "old_")
    assert walked.returncode == 2 and "holds no binary" in walked.stderr
    from shimgen.builder.builder import read_artifacts

    (out / "libx.so").write_bytes(b"")
    assert read_artifacts(out) == (out / "libx.so",)
    (out / "libx.so").unlink()

    # The next run completes the change.
    config.write_text(CONFIG.format(prefix="new_"))
    assert run_shimgen("generate", "-c", config, "-o", out).returncode == 0
    after = _outputs(out)
    assert after.keys() == before.keys() and b'"new_"' in after["manifest.json"]
    assert not [p for p in out.iterdir() if p.name.startswith(".") and p not in leftovers]
