"""Config loading: defaults, lookup, and one clear error (exit 2) per kind of mistake."""

from __future__ import annotations

import pytest

from shimgen.errors import ConfigError
from shimgen.project.config import find_config, load_config
from tests.support import run_shimgen

MINIMAL = 'prefix = "executorch_"\nsymbols = ["aoti_torch_empty_strided"]\n'


def test_defaults_follow_the_executorch_convention(write_config):
    config = load_config(write_config(MINIMAL))
    assert config.prefix == "executorch_"
    assert config.macro == "AOTI_SHIM_SYMBOL_PREFIX"
    assert config.export_macro == "AOTI_SHIM_EXPORT"
    assert config.patterns == ("aoti_torch_*",)
    assert config.required is None
    assert config.outputs.dir == config.root / "generated"
    assert config.outputs.files["header"] == "export.h"


def test_pyproject_table_is_found_from_a_subdirectory(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.shimgen]\n' + MINIMAL)
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    found = find_config(sub)
    assert found == tmp_path / "pyproject.toml"
    assert load_config(found).prefix == "executorch_"


def test_shimgen_toml_wins_over_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.shimgen]\n" + MINIMAL)
    (tmp_path / "shimgen.toml").write_text(MINIMAL.replace("executorch_", "other_"))
    assert load_config(find_config(tmp_path)).prefix == "other_"


def test_pyproject_without_the_table_is_not_a_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"no shimgen\.toml"):
        find_config(tmp_path)


def test_outputs_can_be_switched_off(write_config):
    config = load_config(write_config(MINIMAL + "[outputs]\nbzl = false\ndef = false\n"))
    assert "bzl" not in config.outputs.files and "def" not in config.outputs.files
    assert config.outputs.files["cmake"] == "shimgen.cmake"


BAD_CONFIGS = [
    ("missing prefix", 'symbols = ["aoti_torch_x"]\n', "missing required key 'prefix'"),
    ("reserved prefix __", 'prefix = "__x_"\nsymbols = ["aoti_torch_x"]\n', "reserved"),
    ("reserved prefix _X", 'prefix = "_Exec_"\nsymbols = ["aoti_torch_x"]\n', "reserved"),
    ("bad prefix", 'prefix = "9lives"\nsymbols = ["aoti_torch_x"]\n', "not a valid C identifier fragment"),
    ("long prefix", f'prefix = "{"p" * 65}"\nsymbols = ["aoti_torch_x"]\n', "at most 64"),
    ("unknown key", MINIMAL + 'prefx = "y"\n', "shimgen.toml:3: prefx: unknown key 'prefx'"),
    ("unknown output key", MINIMAL + "[outputs]\nheadr = 'x.h'\n", "did you mean 'header'"),
    ("bad symbol", 'prefix = "p_"\nsymbols = ["aoti-torch"]\n', "'aoti-torch' is not a C identifier"),
    ("duplicate symbol", 'prefix = "p_"\nsymbols = ["a_x", "a_x"]\n', "'a_x' is listed twice"),
    ("already prefixed", 'prefix = "p_"\nsymbols = ["a_x", "p_a_x"]\n', "already carries the prefix"),
    ("escaping output dir", MINIMAL + '[outputs]\ndir = "../elsewhere"\n', "leaves the project directory"),
    ("absolute output dir", MINIMAL + '[outputs]\ndir = "/tmp/x"\n', "leaves the project directory"),
    ("output with a path", MINIMAL + '[outputs]\nheader = "../x.h"\n', "plain file name"),
    ("escaping header", 'prefix = "p_"\nheaders = ["../*.h"]\n', "leaves the project directory"),
    ("wrong type", 'prefix = "p_"\nsymbols = "a_x"\n', "must be a list of strings"),
    ("bad macro", MINIMAL + 'macro = "__PREFIX"\n', "not a valid, unreserved C macro name"),
    ("no shims", 'prefix = "p_"\n', "give the shims"),
    ("invalid toml", 'prefix = "p_\n', "invalid TOML"),
]


@pytest.mark.parametrize(("body", "message"), [c[1:] for c in BAD_CONFIGS], ids=[c[0] for c in BAD_CONFIGS])
def test_config_errors_are_one_line_and_exit_2(write_config, run_cli, body, message):
    path = write_config(body)
    result = run_cli("generate", "-c", path)
    assert result.code == 2
    assert message in result.err, result.err
    assert "Traceback" not in result.err
    assert all(line.startswith("shimgen: error: ") for line in result.err.splitlines())
    assert not (path.parent / "generated").exists(), "nothing may be written for a bad config"


# Configs that parse but could never compile: each problem one line naming file, line and key.
UNCOMPILABLE = [
    ("keyword symbol", 'symbols = ["int"]\n', "shimgen.toml:2: symbols: 'int' is a C or C++ keyword"),
    ("C++ keyword symbol", 'symbols = ["a_x", "class"]\n', "shimgen.toml:2: symbols: 'class' is a C or C++ keyword"),
    ("main as a symbol", 'symbols = ["main"]\n', "shimgen.toml:2: symbols: 'main' is a name the C standard"),
    ("NULL as a symbol", 'symbols = ["NULL"]\n', "shimgen.toml:2: symbols: 'NULL' is a name the C standard"),
    ("keyword macro", 'symbols = ["a_x"]\nmacro = "int"\n', "shimgen.toml:3: macro: 'int' is a C or C++ keyword"),
    ("defined as a macro", 'symbols = ["a_x"]\nbuild_macro = "defined"\n', "shimgen.toml:3: build_macro: 'defined'"),
    ("keyword export", 'symbols = ["a_x"]\nexports = ["return"]\n', "shimgen.toml:3: exports: 'return' is a C"),
    ("macro = export_macro", 'symbols = ["a_x"]\nmacro = "M"\nexport_macro = "M"\n',
     "shimgen.toml:4: export_macro: 'M' is also 'macro'"),
    ("build_macro = macro", 'symbols = ["a_x"]\nmacro = "M"\nbuild_macro = "M"\n',
     "shimgen.toml:4: build_macro: 'M' is also 'macro'"),
    ("export_macro = default macro", 'symbols = ["a_x"]\nexport_macro = "AOTI_SHIM_SYMBOL_PREFIX"\n',
     "shimgen.toml:3: export_macro: 'AOTI_SHIM_SYMBOL_PREFIX' is also 'macro'"),
    ("symbol also exported", 'symbols = ["a_x", "a_y"]\nexports = ["a_y"]\n',
     "shimgen.toml:3: exports: 'a_y' is also listed in 'symbols'"),
    ("C11 keyword symbol", 'symbols = ["_Bool"]\n', "shimgen.toml:2: symbols: '_Bool' is a C or C++ keyword"),
    ("GNU keyword symbol", 'symbols = ["__attribute__"]\n', "symbols: '__attribute__' is a C or C++ keyword"),
    ("symbol = macro", 'symbols = ["M"]\nmacro = "M"\n', "shimgen.toml:2: symbols: 'M' is also 'macro'"),
    ("symbol = default export_macro", 'symbols = ["AOTI_SHIM_EXPORT"]\n',
     "shimgen.toml:2: symbols: 'AOTI_SHIM_EXPORT' is also 'export_macro'"),
    ("export = build_macro", 'symbols = ["a_x"]\nexports = ["B"]\nbuild_macro = "B"\n',
     "shimgen.toml:3: exports: 'B' is also 'build_macro'"),
    ("the header's own macro as a symbol", 'symbols = ["SHIMGEN_CONCAT_"]\n',
     "symbols: 'SHIMGEN_CONCAT_' starts with SHIMGEN_"),
    ("the header's own macro as a macro", 'symbols = ["a_x"]\nmacro = "SHIMGEN_PREFIXED_NAME"\n',
     "macro: 'SHIMGEN_PREFIXED_NAME' starts with SHIMGEN_"),
]


@pytest.mark.parametrize(("body", "message"), [c[1:] for c in UNCOMPILABLE], ids=[c[0] for c in UNCOMPILABLE])
def test_uncompilable_names_are_config_errors(write_config, run_cli, body, message):
    path = write_config('prefix = "p_"\n' + body)
    result = run_cli("generate", "-c", path)
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("shimgen: error: ") and message in lines[0], result.err
    assert not (path.parent / "generated").exists()


def test_uncompilable_names_are_reported_together(write_config):
    with pytest.raises(ConfigError) as info:
        load_config(write_config('prefix = "p_"\nsymbols = ["int", "main", "a_x"]\nexports = ["a_x"]\n'
                                 'macro = "M"\nexport_macro = "M"\n'))
    assert len(info.value.problems) == 4, info.value.problems


def test_every_problem_is_reported_at_once(write_config):
    with pytest.raises(ConfigError) as info:
        load_config(write_config('prefix = "__"\nbogus = 1\nsymbols = ["a-b"]\n'))
    assert len(info.value.problems) == 3


def test_output_dir_through_a_symlink_leaving_the_tree_is_rejected(tmp_path, write_config):
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (tmp_path / "link").symlink_to(outside)
    with pytest.raises(ConfigError, match="leaves the project directory"):
        load_config(write_config(MINIMAL + '[outputs]\ndir = "link/gen"\n'))


def test_required_glob_matching_nothing_is_an_error(write_config, run_cli):
    path = write_config(MINIMAL + 'required = ["aoti_torch_nothing*"]\n')
    result = run_cli("generate", "-c", path)
    assert result.code == 2 and "matches no shim" in result.err


def test_no_config_anywhere_exits_2_with_a_hint(tmp_path):
    result = run_shimgen("generate", cwd=tmp_path)
    assert result.returncode == 2
    assert "shimgen init" in result.stderr and "Traceback" not in result.stderr


def test_init_writes_a_loadable_config_and_refuses_to_overwrite(tmp_path):
    first = run_shimgen("init", "--prefix", "mine_", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    config = load_config(tmp_path / "shimgen.toml")
    assert config.prefix == "mine_"
    second = run_shimgen("init", cwd=tmp_path)
    assert second.returncode == 2 and "already exists" in second.stderr


def test_init_rejects_a_reserved_prefix(tmp_path):
    result = run_shimgen("init", "--prefix", "__bad", cwd=tmp_path)
    assert result.returncode == 2 and "reserved" in result.stderr
    assert not (tmp_path / "shimgen.toml").exists()
