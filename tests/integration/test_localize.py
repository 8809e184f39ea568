"""prefix-imports hides a model's statically linked C++ runtime (issue 13, item 1).

A CUDA AOTInductor model links libstdc++ statically and exports it; with the system libstdc++.so.6
loaded first, part of the model's own calls bind to the system copy (on the H200 that split made
std::regex crash inside the model: docs/aoti.md). Here a real library built the same way (g++
-static-libstdc++, std::regex inside, one shim import) goes through the real prefix-imports; a child
process loads libstdc++.so.6 first, then the library, and reads the dynamic linker's bindings from
the GOT.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shimgen.aoti.localize import ExportedSymbol, is_cxx_runtime, plan_localize
from shimgen.aoti.prefix_imports import prefix_imports

REPO = Path(__file__).resolve().parents[2]

MODEL_CPP = r"""
#include <regex>
#include <string>
extern "C" __attribute__((weak)) int aoti_torch_get_dim(void*, long*);
extern "C" int model_parse(const char* s) {
  if (aoti_torch_get_dim != nullptr) return -3;  // never bound in this test
  try {
    std::regex re("(cpu|cuda)(:([0-9]+))?");
    std::smatch m;
    std::string str(s);
    if (!std::regex_match(str, m, re)) return -1;
    return m[3].matched ? std::stoi(m[3].str()) : 0;
  } catch (...) { return -2; }
}
"""

CHILD = r"""
import ctypes, json, os, sys
sys.path.insert(0, sys.argv[2])
ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)   # what numpy, LIEF and torch bring along
so = os.path.abspath(sys.argv[1])
lib = ctypes.CDLL(so, mode=os.RTLD_NOW | os.RTLD_LOCAL)
import lief
from aoti_models import bound_library
from shimgen.aoti.localize import is_cxx_runtime
binary = lief.ELF.parse(so)  # kept alive: LIEF's symbol iterator does not own the binary
names = {s.name for s in binary.dynamic_symbols if s.shndx != 0 and is_cxx_runtime(s.name)}
bound = bound_library(so, names)
print(json.dumps({"parse": lib.model_parse(b"cuda:3"),
                  "own": sum(1 for v in bound.values() if os.path.realpath(v) == os.path.realpath(so)),
                  "libstdcxx": sum(1 for v in bound.values() if "libstdc++" in v)}))
"""


def _system_exports(name: str) -> list[str]:
    path = subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True, check=False).stdout.strip()
    if not Path(path).is_file():
        pytest.skip(f"{name} not found")
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
    return sorted(n for n in names if not n.startswith(("GLIBCXX_", "CXXABI_", "GCC_")))


@pytest.mark.parametrize("library", ["libstdc++.so.6", "libgcc_s.so.1"])
def test_every_export_of_the_real_cxx_runtime_is_classified(library):
    names = _system_exports(library)
    assert len(names) > 100
    assert [n for n in names if not is_cxx_runtime(n)] == []


def test_the_model_api_and_shims_are_not_cxx_runtime():
    for name in ("AOTInductorModelContainerRun", "AOTInductorModelContainerCreateWithDevice", "AOTInductorGetLastError",
                 "executorch_aoti_torch_empty_strided", "aoti_torch_cuda_mm_out", "_binary_constants_bin_start",
                 "_ZN5torch12aot_inductor16AOTInductorModel3runEv", "_ZN3c106detail19torchCheckFailEPKcS2_jS2_",
                 "cudaMalloc", "__divide_by_zero_handler", "main"):
        assert not is_cxx_runtime(name), name


def test_plan_hides_runtime_symbols_and_rebinds_unique():
    plan = plan_localize([
        ExportedSymbol("_ZNSt6locale7classicEv", "GLOBAL", "DEFAULT"),
        ExportedSymbol("_ZNSt7collateIcE2idE", "GNU_UNIQUE", "DEFAULT"),
        ExportedSymbol("_ZdlPv", "WEAK", "PROTECTED"),
        ExportedSymbol("__cxa_throw", "GLOBAL", "HIDDEN"),  # already private
        ExportedSymbol("AOTInductorModelContainerRun", "GLOBAL", "DEFAULT"),
        # A CPU model's header-defined inline variable: unique, so it would pin the model in memory.
        ExportedSymbol("inductor_cpu_integer_div_error_flag", "GNU_UNIQUE", "DEFAULT"),
    ])
    assert plan.hide == ("_ZNSt6locale7classicEv", "_ZNSt7collateIcE2idE", "_ZdlPv",
                         "inductor_cpu_integer_div_error_flag")
    assert plan.unique_to_global == ("_ZNSt7collateIcE2idE", "inductor_cpu_integer_div_error_flag")


@pytest.fixture(scope="module")
def static_cxx_model(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    work = tmp_path_factory.mktemp("static-cxx")
    (work / "model.cpp").write_text(MODEL_CPP)
    so = work / "model.so"
    subprocess.run(["g++", "-O1", "-shared", "-fPIC", "-static-libstdc++", "-static-libgcc", str(work / "model.cpp"),
                    "-o", str(so)], check=True, capture_output=True)
    return so


def _bindings(so: Path) -> dict:
    completed = subprocess.run([sys.executable, "-c", CHILD, str(so), str(REPO / "tests")], capture_output=True,
                               text=True, timeout=120, cwd=REPO, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_prefix_imports_makes_the_model_bind_its_own_cxx_runtime(static_cxx_model, tmp_path):
    before = _bindings(static_cxx_model)
    # The defect: with libstdc++.so.6 loaded first, the model's C++ runtime is split across two copies.
    assert before["libstdcxx"] > 0 and before["own"] > 0, before

    out = tmp_path / "model.prefixed.so"
    result = prefix_imports(static_cxx_model, out, prefix="executorch_", shims=("aoti_torch_*",))
    (member,) = result.members
    assert member.imports == ("executorch_aoti_torch_get_dim",)
    assert len(member.localized) > 1000

    after = _bindings(out)
    assert after["libstdcxx"] == 0 and after["own"] > 0, after
    assert after["parse"] == 3  # std::regex runs, on the model's own copy

    import lief

    binary = lief.ELF.parse(str(out))
    symbols = [s for s in binary.dynamic_symbols if s.shndx != 0 and is_cxx_runtime(s.name)]
    assert symbols and all(s.visibility.name == "HIDDEN" for s in symbols)
    assert not any(s.binding.name == "GNU_UNIQUE" for s in symbols)
    api = [s for s in binary.dynamic_symbols if s.name == "model_parse"]
    assert api and api[0].visibility.name == "DEFAULT"  # the library's own API stays exported
