"""Pure logic of the AOTI routes: which imports get renamed, and which compile flags are kept."""

from __future__ import annotations

import pytest

from shimgen.aoti.prefix_imports import DynSymbol, plan_renames, verify_imports
from shimgen.aoti.recompile import compile_flags
from shimgen.errors import InputError

PATTERNS = ("aoti_torch_*",)


def test_plan_renames_only_undefined_shims():
    symbols = [DynSymbol("aoti_torch_get_dim", False, None), DynSymbol("malloc", False, "GLIBC_2.2.5"),
               DynSymbol("AOTInductorModelContainerRun", True, None), DynSymbol("executorch_aoti_torch_clone", False, None)]
    plan = plan_renames(symbols, PATTERNS, "executorch_", where="m.so")
    assert plan.renames == (("aoti_torch_get_dim", "executorch_aoti_torch_get_dim"),)
    assert plan.already_prefixed == ("executorch_aoti_torch_clone",)


@pytest.mark.parametrize("symbols, message", [
    ([DynSymbol("aoti_torch_get_dim", True, None)], "defines 1 shim"),
    ([DynSymbol("executorch_aoti_torch_get_dim", True, None), DynSymbol("aoti_torch_x", False, None)], "defines 1 shim"),
    ([DynSymbol("aoti_torch_get_dim", False, "V1")], "aoti_torch_get_dim@V1"),
    ([DynSymbol("malloc", False, None)], "imports no shim"),
])
def test_plan_renames_refuses(symbols, message):
    with pytest.raises(InputError, match=message):
        plan_renames(symbols, PATTERNS, "executorch_", where="m.so")


def test_verify_imports():
    good = [DynSymbol("executorch_aoti_torch_get_dim", False, None)]
    assert verify_imports(good, PATTERNS, "executorch_", frozenset({"executorch_aoti_torch_get_dim"}), where="m") == (
        "executorch_aoti_torch_get_dim",)
    with pytest.raises(InputError, match="does not provide"):
        verify_imports(good, PATTERNS, "executorch_", frozenset(), where="m")
    with pytest.raises(InputError, match="still imports plain"):
        verify_imports([DynSymbol("aoti_torch_x", False, None)], PATTERNS, "executorch_", None, where="m")


SOURCE_TAIL = """
// g++ /tmp/c/abc.wrapper.cpp -D TORCH_INDUCTOR_CPP_WRAPPER -D  C10_USING_CUSTOM_GENERATED_MACROS  -O1 -march=native -fPIC -std=c++20 -fopenmp  -include /tmp/c/pch/x.h -I/py/include -I/torch/include    -c -o /tmp/c/abc.wrapper.o
// g++ /tmp/c/abc.wrapper.o /tmp/c/k.o -shared -fPIC -o /tmp/c/abc.wrapper.so -lgomp
"""


def test_compile_flags_keep_the_options_and_drop_the_files():
    command = compile_flags("int x;\n" + SOURCE_TAIL, "w.cpp")
    assert command.compiler == "g++"
    assert command.flags == ("-DTORCH_INDUCTOR_CPP_WRAPPER", "-DC10_USING_CUSTOM_GENERATED_MACROS", "-O1",
                             "-march=native", "-fPIC", "-std=c++20", "-fopenmp", "-I/py/include", "-I/torch/include")


def test_compile_flags_missing_is_an_input_error():
    with pytest.raises(InputError, match="no compile command"):
        compile_flags("int x;\n", "w.cpp")
