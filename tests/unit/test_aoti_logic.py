"""Pure logic of the AOTI routes: which imports get renamed, and which compile flags are kept."""

from __future__ import annotations

import pytest

from shimgen.aoti.compile_command import vetted_flags
from shimgen.aoti.prefix_imports import DynSymbol, plan_renames, verify_imports
from shimgen.aoti.runner import lower_bound_hint
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


def test_verify_imports_refuses_an_aoti_name_no_pattern_covers():
    # A model compiled with cpp.enable_kernel_profile imports aoti_record_function_start/_end: with only
    # aoti_torch_* as shims they stayed plain, prefix-imports passed, and beside libtorch they bound there.
    symbols = [DynSymbol("executorch_aoti_torch_get_dim", False, None),
               DynSymbol("aoti_record_function_start", False, None), DynSymbol("aoti_record_function_end", False, None)]
    with pytest.raises(InputError, match=r"patterns do not cover \(aoti_record_function_end, aoti_record_function_start\)"):
        verify_imports(symbols, PATTERNS, "executorch_", None, where="m")
    covered = ("aoti_torch_*", "aoti_record_function_*")
    assert verify_imports([DynSymbol("executorch_" + s.name.removeprefix("executorch_"), False, None) for s in symbols],
                          covered, "executorch_", None, where="m") == (
        "executorch_aoti_record_function_end", "executorch_aoti_record_function_start", "executorch_aoti_torch_get_dim")
    # A prefix that itself starts with aoti_ is not mistaken for an uncovered name.
    assert verify_imports([DynSymbol("aoti_x_aoti_torch_get_dim", False, None)], PATTERNS, "aoti_x_", None,
                          where="m") == ("aoti_x_aoti_torch_get_dim",)


SOURCE_TAIL = """
// g++ /tmp/c/abc.wrapper.cpp -D TORCH_INDUCTOR_CPP_WRAPPER -D  C10_USING_CUSTOM_GENERATED_MACROS  -O1 -march=native -fPIC -std=c++20 -fopenmp  -include /tmp/c/pch/x.h -I/py/include -I/torch/include    -c -o /tmp/c/abc.wrapper.o
// g++ /tmp/c/abc.wrapper.o /tmp/c/k.o -shared -fPIC -o /tmp/c/abc.wrapper.so -lgomp
"""


def _exists(*dirs: str):
    return lambda path: str(path) in dirs


def test_compile_flags_keep_the_options_and_drop_the_files():
    command = vetted_flags("int x;\n" + SOURCE_TAIL, "w.cpp", is_dir=_exists("/torch/include"))
    assert command.recorded_compiler == "g++"
    # /py/include does not exist here: dropped, like the files of the machine that compiled it.
    assert command.flags == ("-DTORCH_INDUCTOR_CPP_WRAPPER", "-DC10_USING_CUSTOM_GENERATED_MACROS", "-O1",
                             "-march=native", "-fPIC", "-std=c++20", "-fopenmp", "-I/torch/include")


def test_compile_flags_missing_is_an_input_error():
    with pytest.raises(InputError, match="no compile command"):
        vetted_flags("int x;\n", "w.cpp")


@pytest.mark.parametrize("command, word", [
    ("bash -ec 'id > /tmp/x' x.cpp -c -o x.o", "-ec"),
    ("g++ x.cpp -wrapper sh,-c,'id>/tmp/x' -c -o x.o", "-wrapper"),
    ("g++ x.cpp -B/tmp/evil -c -o x.o", "-B/tmp/evil"),
    ("g++ x.cpp -specs=/tmp/evil.specs -c -o x.o", "-specs=/tmp/evil.specs"),
    ("g++ x.cpp @/tmp/args -c -o x.o", "@/tmp/args"),
    ("g++ x.cpp -fplugin=/tmp/p.so -c -o x.o", "-fplugin=/tmp/p.so"),
    ("g++ x.cpp -fplugin=evil -c -o x.o", "-fplugin=evil"),
    ("g++ x.cpp -Xlinker -plugin -c -o x.o", "-Xlinker"),
    ("g++ x.cpp -Wl,-plugin,/tmp/p.so -c -o x.o", "-Wl,-plugin,/tmp/p.so"),
    ("g++ x.cpp -Wp,-imacros,/etc/passwd -c -o x.o", "-Wp,-imacros,/etc/passwd"),
    ("g++ x.cpp -fdump-tree-all -c -o x.o", "-fdump-tree-all"),
    ("g++ x.cpp -fprofile-generate -c -o x.o", "-fprofile-generate"),
    ("g++ x.cpp -mllvm -x -c -o x.o", "-mllvm"),
    ("g++ x.cpp -Xclang -load -c -o x.o", "-Xclang"),
    ("g++ x.cpp y.cpp -c -o x.o", "y.cpp"),
    ("g++ x.cpp -D 'A=$(id)' -c -o x.o", "-DA=$(id)"),
    ("g++ x.cpp '-DA;B' -c -o x.o", "-DA;B"),
    ("g++ x.cpp \"-march=native' -c\" -c -o x.o", "-march=native' -c"),
    # clang (--compiler clang++): dlopens the pass plugin; with an empty entry in $LD_LIBRARY_PATH a
    # bare name is found in the scratch directory, where the package's own .so is extracted.
    ("g++ x.cpp -fpass-plugin=original.so -c -o x.o", "-fpass-plugin=original.so"),
    ("g++ x.cpp -ftime-trace=.. -c -o x.o", "-ftime-trace=.."),  # writes outside the scratch directory
    ("g++ x.cpp -fcrash-diagnostics-dir=x -c -o x.o", "-fcrash-diagnostics-dir=x"),
    ("g++ x.cpp -foffload-options=-B. -c -o x.o", "-foffload-options=-B."),
    ("g++ x.cpp -fanything=.. -c -o x.o", "-fanything=.."),  # a value may not be . or ..
    ("g++ x.cpp -mfoo=. -c -o x.o", "-mfoo=."),
])
def test_compile_flags_refuse_what_is_not_allow_listed(command, word):
    with pytest.raises(InputError, match=r"w\.cpp: recorded compile command") as caught:
        vetted_flags(f"int x;\n// {command}\n", "w.cpp")
    assert word in str(caught.value) and len(caught.value.problems) == 1


def test_compile_flags_unbalanced_quote_is_an_input_error():
    with pytest.raises(InputError, match="unreadable compile command"):
        vetted_flags("// g++ x.cpp -c 'open -o x.o\n", "w.cpp")


def test_model_output_already_in_the_failure_is_not_repeated():
    """AOTInductor prints 'Error: <what>' and returns the same <what>: one problem, one line (it came
    out twice: 'the model failed: X' and 'the model printed: Error: X')."""
    from shimgen.aoti.runner import with_model_output

    failure = "the model failed: input_handles[0]: unmatched dim value at 0, expected: 8, but got: 3"
    printed = ["Error: input_handles[0]: unmatched dim value at 0, expected: 8, but got: 3\n", "  \n",
               "Error: something else\n"]
    assert with_model_output(failure, printed) == [failure, "the model printed: Error: something else"]


def test_a_dynamic_size_below_inductors_lower_bound_gets_a_hint():
    """AOTInductor's input check refuses a dynamic size of 0 or 1 (its backed-size assumption, >= 2)
    even where export declared the dim from 1: the hint names torch's switch. Any other refusal (a
    size past the declared maximum, a lower bound the export itself declared) gets none."""
    refused = "input_handles[0]: dim value is too small at 0, expected it to be >= 2, but got: 1"
    assert "aot_inductor.check_lowerbound" in (lower_bound_hint(refused) or "")
    assert lower_bound_hint(refused.replace("got: 1", "got: 0")) is not None
    assert lower_bound_hint("input_handles[1]: dim value is too large at 2, expected to be <= 256, but got: 257") is None
    assert lower_bound_hint("input_handles[0]: dim value is too small at 2, expected it to be >= 8, but got: 1") is None
    assert lower_bound_hint(refused.replace("got: 1", "got: 12")) is None
