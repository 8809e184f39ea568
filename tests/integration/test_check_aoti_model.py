"""SG009 on a real CPU AOTInductor model .so (torch 2.13, link_libtorch=False, from the zoo's cache).

Measured (docs/checking.md): the model .so exports ~430 symbols, ~380 of them C++ (weak template
instantiations of std::_Hashtable, std::function, std::vector on the model's own types, typeinfo,
GNU_UNIQUE statics), but defines none of the C++ runtime's own functions: it imports __cxa_throw
and __gxx_personality_v0 from libstdc++.so.6, which it lists as DT_NEEDED. So a CPU model carries
no private libstdc++, and SG009 must stay silent while the plain shim imports stay SG004 errors.
(The CUDA model, which links libstdc++ statically, is the GPU half: tests/gpu.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from shimgen.check.runtimes import families
from tests.support import run_shimgen

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("nm") is None, reason="binutils nm missing")]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
aoti_zoo = pytest.importorskip("aoti_zoo")
pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model_so(tmp_path_factory) -> Path:
    directory = aoti_zoo.ensure_compiled(["mlp"], device="cpu", link_libtorch=False)["mlp"]
    with zipfile.ZipFile(directory / "model.pt2") as archive:
        (member,) = [n for n in archive.namelist() if n.endswith(".so")]
        so = tmp_path_factory.mktemp("aoti-model") / "model.so"
        so.write_bytes(archive.read(member))
    return so


def _nm(so: Path, *flags: str) -> list[tuple[str, str]]:
    lines = subprocess.run(["nm", "-D", *flags, so], capture_output=True, text=True, check=True).stdout.splitlines()
    return [(parts[-2], parts[-1].split("@")[0]) for parts in map(str.split, lines) if len(parts) >= 2]


def test_cpu_model_so_has_no_private_runtime_copy(model_so):
    defined = {name for _, name in _nm(model_so, "--defined-only")}
    undefined = {name for kind, name in _nm(model_so, "--undefined-only")}
    anchors = {a for family in families() for a in family.anchors}
    # What binutils says, independently of shimgen: C++ exports, but the runtime itself is shared.
    assert sum(n.startswith(("_ZNSt", "_ZNKSt", "_ZTISt", "_ZTSSt")) for n in defined) > 50
    assert not defined & anchors
    assert {"__cxa_throw", "__gxx_personality_v0"} <= undefined
    needed = subprocess.run(["readelf", "-d", model_so], capture_output=True, text=True, check=True).stdout
    assert "[libstdc++.so.6]" in needed

    result = run_shimgen("check-symbols", model_so, "--prefix", "executorch_", "--pattern", "aoti_torch_*",
                         "--format", "json")
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["code"] == "SG009"]
    plain_imports = {n for n in undefined if n.startswith("aoti_torch_")}
    assert plain_imports and {f["symbol"] for f in findings if f["code"] == "SG004"} == plain_imports
    assert {f["code"] for f in findings} == {"SG004"}
