"""Each problem of an error is one 'shimgen: error:' line: never split inside, never joined."""

from __future__ import annotations

from shimgen.errors import ConfigError, InputError


def test_a_problem_holding_a_semicolon_stays_one_line(write_config, run_cli):
    # The fix hint of this error reads "...; list the plain name": one problem, one line.
    path = write_config('prefix = "p_"\nsymbols = ["p_a_x"]\n')
    result = run_cli("generate", "-c", path)
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("shimgen: error: ") and lines[0].endswith("list the plain name")


def test_several_config_problems_print_one_line_each(write_config, run_cli):
    path = write_config('prefix = "__"\nbogus = 1\nsymbols = ["a-b"]\n')
    result = run_cli("generate", "-c", path)
    assert result.code == 2
    lines = result.err.splitlines()
    assert len(lines) == 3 and all(line.startswith("shimgen: error: ") for line in lines), lines


def test_stale_outputs_print_one_line_per_file(write_config, run_cli):
    path = write_config('prefix = "p_"\nsymbols = ["a_x"]\n[outputs]\nbzl = false\n')
    assert run_cli("generate", "-c", path).code == 0
    out = path.parent / "generated"
    (out / "shimgen.map").write_text("edited\n")
    (out / "export.h").unlink()
    result = run_cli("generate", "-c", path, "--check")
    assert result.code == 1
    assert result.err.splitlines() == [
        f"shimgen: error: missing: {out / 'export.h'}",
        f"shimgen: error: stale: {out / 'shimgen.map'}",
        "shimgen: error: run 'shimgen generate' to update",
    ]


def test_problems_are_kept_as_given():
    assert ConfigError(["a; b", "c"]).problems == ["a; b", "c"]
    assert InputError("x; y").problems == ["x; y"]
    assert str(ConfigError(["a", "b"])) == "a; b"
