"""SG007 on thread-locals decided by binding semantics, proven by running the binaries.

A static library holding a thread-local (and an accessor returning its address) is linked into
two shared libraries; a program linked against both prints the address each library's accessor
sees. Two addresses = two copies (the hazard), one = the dynamic linker unified them. The rule
must say error exactly when the program observes two copies.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.check import Policy, check_paths

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

POLICY = Policy.from_options("executorch_", ("aoti_torch_*",))

STATE_C = "__thread int executorch_caller_stream = 7;\nint *stream_slot(void) { return &executorch_caller_stream; }\n"
# A function-local thread_local of a template: g++ emits it STB_GNU_UNIQUE.
STATE_CC = ("template <class T> struct Slot { static int *get() { static thread_local int v; return &v; } };\n"
            "int *stream_slot() { return Slot<int>::get(); }\n")
LIB_C = 'extern int *stream_slot(void);\n__attribute__((visibility("default"))) void *{name}_slot(void) {{ return stream_slot(); }}\n'
MAIN_C = ('#include <stdio.h>\nvoid *a_slot(void); void *b_slot(void);\n'
          'int main(void) { printf("%d\\n", a_slot() == b_slot() ? 1 : 2); return 0; }\n')

VARIANTS = {
    # name: (state source, compiler, state flags, shared-library link flags)
    "hidden": ("c", ["-fvisibility=hidden"], []),
    "default": ("c", [], []),
    "symbolic": ("c", [], ["-Wl,-Bsymbolic"]),
    "protected": ("c", ["-fvisibility=protected"], []),
    "unique_hidden_libs": ("cc", [], ["-Wl,--no-undefined"]),
}


def build(d: Path, variant: str) -> tuple[list[Path], int]:
    """(the two libraries, copies the program observes)."""
    lang, state_flags, link_flags = VARIANTS[variant]
    d.mkdir()
    compiler = "g++" if lang == "cc" else "gcc"
    (d / f"state.{lang}").write_text(STATE_CC if lang == "cc" else STATE_C)
    def run(*a):
        return subprocess.run([*map(str, a)], check=True, capture_output=True, text=True, cwd=d)
    run(compiler, "-c", "-fPIC", *state_flags, f"state.{lang}", "-o", "state.o")
    run("ar", "rcs", "libstate.a", "state.o")
    libs = []
    for name in ("a", "b"):
        (d / f"{name}.c").write_text(LIB_C.format(name=name).replace("extern int", 'extern "C++" int' if lang == "cc"
                                                                            else "extern int"))
        source = f"{name}.{'cc' if lang == 'cc' else 'c'}"
        if lang == "cc":
            (d / source).write_text('int *stream_slot();\nextern "C" __attribute__((visibility("default"))) void *'
                                    f'{name}_slot() {{ return stream_slot(); }}\n')
        run(compiler, "-shared", "-fPIC", "-o", f"lib{name}.so", source, "libstate.a", *link_flags)
        libs.append(d / f"lib{name}.so")
    (d / "main.c").write_text(MAIN_C)
    run("gcc", "-o", "main", "main.c", "-L.", "-la", "-lb", "-Wl,-rpath,$ORIGIN")
    copies = int(run("./main").stdout)
    return libs, copies


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sg007_is_an_error_exactly_when_the_program_sees_two_copies(tmp_path, variant):
    libs, copies = build(tmp_path / variant, variant)
    report = check_paths(libs, POLICY)
    sg007 = [f for f in report.findings + report.notes if f.code == "SG007"]
    assert sg007, "both libraries define the thread-local: the rule must at least note it"
    errors = [f for f in sg007 if f.severity == "error"]
    assert errors == [f for f in report.findings if f.code == "SG007"], "errors are findings, notes are not"
    # The shim runtime's own state (it carries the prefix): the fix is the shim archive's linkage.
    assert all("link the shim archive PRIVATE" in f.hint for f in errors)
    expected_copies = {"hidden": 2, "default": 1, "symbolic": 2, "protected": 2, "unique_hidden_libs": 1}[variant]
    assert copies == expected_copies, f"{variant}: the program saw {copies} copies"
    assert bool(errors) == (copies == 2), [f.message for f in sg007]
    assert report.exit_code == (1 if copies == 2 else 0)


def test_unified_duplicates_are_notes_shown_only_with_verbose(tmp_path, capsys):
    from shimgen.cli import main

    libs, copies = build(tmp_path / "default", "default")
    assert copies == 1
    assert main(["check-symbols", *map(str, libs), "--prefix", "executorch_"]) == 0
    quiet = capsys.readouterr().out
    assert "SG007" not in quiet and quiet.startswith("clean")
    from shimgen.check import render_text

    shown = render_text(check_paths(libs, POLICY), verbose=True)  # what the global -v/--verbose shows
    assert "note SG007 executorch_caller_stream" in shown and "one copy" in shown
    assert main(["check-symbols", *map(str, libs), "--prefix", "executorch_", "--format", "json"]) == 0
    assert '"severity": "note"' in capsys.readouterr().out


def test_private_copies_nobody_exports_are_each_librarys_internals(tmp_path):
    """Hidden in both libraries and not the runtime's (no prefix): two copies, as the program
    shows, but neither library lets others see its copy (torch's two cpp-httplib copies): a note."""
    libs, copies = build(tmp_path / "hidden", "hidden")
    assert copies == 2
    report = check_paths(libs, Policy.from_options("other_", ("aoti_torch_*",)))
    assert {f.severity for f in report.notes if f.code == "SG007"} == {"note"}
    assert report.findings == ()
