"""One shim matcher: a shim listed in 'symbols' that no pattern matches is renamed by prefix-imports,
exactly as check-symbols counts it a shim (before, prefix-imports left it plain and its own verifier,
check-symbols, then rejected the output)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from shimgen.aoti.prefix_imports import prefix_imports_with_config, read_dynamic_symbols
from shimgen.project.config import load_config

CONSUMER = """
extern int my_listed_shim(int);
extern int aoti_torch_get_dim(void*, long*);
int consumer(void) { long d = 0; return my_listed_shim(1) + aoti_torch_get_dim(0, &d); }
"""


@pytest.fixture
def consumer_so(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    source = tmp_path / "consumer.c"
    source.write_text(CONSUMER)
    target = tmp_path / "consumer.so"
    subprocess.run([compiler, "-shared", "-fPIC", str(source), "-o", str(target)], check=True)
    return target


def test_listed_shim_outside_the_patterns_is_renamed(tmp_path, consumer_so):
    config_path = tmp_path / "shimgen.toml"
    config_path.write_text('prefix = "executorch_"\nsymbols = ["my_listed_shim", "aoti_torch_get_dim"]\n')
    out = tmp_path / "out.so"
    result = prefix_imports_with_config(consumer_so, out, load_config(config_path))
    assert sorted(result.members[0].renamed) == ["aoti_torch_get_dim", "my_listed_shim"]
    undefined = {s.name for s in read_dynamic_symbols(out) if not s.defined}
    assert {"executorch_my_listed_shim", "executorch_aoti_torch_get_dim"} <= undefined
    assert not undefined & {"my_listed_shim", "aoti_torch_get_dim"}


def test_check_symbols_agrees_on_the_output(tmp_path, consumer_so, run_cli):
    config_path = tmp_path / "shimgen.toml"
    config_path.write_text('prefix = "executorch_"\nsymbols = ["my_listed_shim", "aoti_torch_get_dim"]\n')
    before = run_cli("check-symbols", consumer_so, "-c", config_path)
    assert before.code == 1 and "my_listed_shim" in before.out  # SG004: a plain listed shim imported
    out = tmp_path / "out.so"
    prefix_imports_with_config(consumer_so, out, load_config(config_path))
    after = run_cli("check-symbols", out, "-c", config_path)
    assert "SG004" not in after.out, after.out
