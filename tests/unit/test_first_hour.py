"""A new user's first commands (issue 19 items 19 and 20): `shimgen build` beside a quickstart config
says what build is for instead of building the bundled runtime with it; `-q` silences progress."""

from __future__ import annotations

from pathlib import Path

QUICKSTART = 'prefix = "acme_"\nsymbols = ["aoti_torch_empty_strided", "aoti_torch_delete_tensor_object"]\n'


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("shimgen: error: "), err
    return lines[0]


def test_build_beside_a_quickstart_config_refuses_and_creates_nothing(tmp_path, monkeypatch, run_cli):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHIMGEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "shimgen.toml").write_text(QUICKSTART)
    result = run_cli("build")
    assert result.code == 2
    line = _one_error_line(result.err)
    assert "nothing for 'shimgen build' to build here" in line and "shimgen generate" in line, line
    assert not (tmp_path / "build").exists() and not (tmp_path / "cache").exists()


def test_bundled_config_still_builds_the_runtime_project():
    """The control: the bundled config's project is the runtime (so 'shimgen build' with no config
    found, and first-use builds, are unchanged)."""
    from shimgen.build.builder import project_dir
    from shimgen.build.runtime_cache import builds_the_runtime
    from shimgen.project.config import load_config
    from shimgen.resources import default_config, runtime_dir

    config = load_config(default_config())
    assert project_dir(config).resolve() == runtime_dir().resolve() and builds_the_runtime(config)


def test_run_beside_a_quickstart_config_does_not_build_a_runtime_with_it(tmp_path, monkeypatch, run_cli):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHIMGEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "shimgen.toml").write_text(QUICKSTART)
    (tmp_path / "m.pt2").write_bytes(b"PK")
    result = run_cli("run", "m.pt2")
    assert result.code == 2
    line = _one_error_line(result.err)
    assert "describes your own shims" in line and "--runtime" in line, line
    assert not (tmp_path / "cache").exists()


def test_generate_quiet_prints_nothing_and_default_lists_files(tmp_path, run_cli):
    config = tmp_path / "shimgen.toml"
    config.write_text(QUICKSTART)
    quiet = run_cli("generate", "-c", config, "-q")
    assert quiet.code == 0 and quiet.out == "" and quiet.err == ""
    assert (tmp_path / "generated" / "export.h").is_file()
    config.write_text(QUICKSTART.replace("acme_", "other_"))
    loud = run_cli("generate", "-c", config)
    assert loud.code == 0
    assert f"wrote {tmp_path / 'generated' / 'manifest.json'}" in loud.err
    again = run_cli("generate", "-c", config, "-q")
    assert again.out == "" and again.err == ""
    check = run_cli("-q", "generate", "-c", config, "--check")
    assert check.code == 0 and check.out == "" and check.err == ""
    assert Path(tmp_path / "generated").is_dir()


def test_readme_commands_table_lists_every_command_once():
    """The README's commands table names each subcommand the CLI has, once (it listed repair twice,
    with two different synopses)."""
    import re

    from shimgen.commands import COMMANDS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("| command | what it does |")
    rows = [line for line in readme[start:].split("\n\n", 1)[0].splitlines()[2:]]
    named = [re.match(r"\| `shimgen ([a-z-]+)", row).group(1) for row in rows]
    assert sorted(named) == sorted(name.replace("_", "-") for name in COMMANDS), named
