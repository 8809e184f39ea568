"""symbols_from: the rename set read from real compiled objects and archives (gcc, ELF)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from shimgen.project.objects import read_symbols_from
from tests.support import require_tool

LIBRARY = textwrap.dedent(
    """\
    #include <string.h>
    int gfun(void) { return 1; }
    __attribute__((weak)) int wfun(void) { return 2; }
    int gdata = 3;
    static int sfun(void) { return 4; }
    __attribute__((visibility("hidden"))) int hfun(void) { return sfun(); }
    int copy(char *d, const char *s) { memcpy(d, s, 4); return 0; }
    int zz_already(void) { return 5; }
    int __reserved_helper(void) { return 6; }
    """
)


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> Path:
    require_tool("gcc")
    root = tmp_path_factory.mktemp("objs")
    (root / "lib.c").write_text(LIBRARY)
    (root / "more.c").write_text("int other_fun(int x) { return x; }\nint gdata2;\n")
    (root / "build").mkdir()
    for name in ("lib", "more"):
        subprocess.run(["gcc", "-fPIC", "-fno-common", "-c", str(root / f"{name}.c"), "-o",
                        str(root / "build" / f"{name}.o")], check=True)
    subprocess.run(["ar", "rcs", str(root / "build" / "libboth.a"), str(root / "build" / "lib.o"),
                    str(root / "build" / "more.o")], check=True)
    return root


def test_defined_globals_join_and_references_do_not(objects):
    found = read_symbols_from(objects, objects / "shimgen.toml", ["build/*.o"], prefix="zz_")
    assert set(found.names) == {"gfun", "wfun", "gdata", "hfun", "copy", "other_fun", "gdata2"}
    assert "memcpy" not in found.names and "sfun" not in found.names
    assert [s.name for s in found.weak] == ["wfun"]
    skipped = {s.symbol.name: s.reason for s in found.skipped}
    assert skipped == {"zz_already": "already prefixed", "__reserved_helper": "reserved or mangled name"}
    assert any("wfun" in line and "weak" in line for line in found.warnings())


def test_archive_members_are_recorded_and_exclude_takes_names_out(objects):
    found = read_symbols_from(objects, objects / "shimgen.toml", ["build/libboth.a"], prefix="zz_",
                              exclude=["gdata*"])
    by_name = {s.name: s for s in found.renamed}
    assert by_name["other_fun"].file == "build/libboth.a" and by_name["other_fun"].member == "more.o"
    assert by_name["gfun"].member == "lib.o"
    assert found.excluded == ("gdata", "gdata2") and "gdata" not in by_name


def test_no_match_is_a_config_error(objects):
    from shimgen.errors import ConfigError

    with pytest.raises(ConfigError, match="matches no file"):
        read_symbols_from(objects, objects / "shimgen.toml", ["build/*.dylib"], prefix="zz_")


def test_config_symbols_from_feeds_manifest_and_check_symbols(objects, run_cli):
    import json

    config = objects / "shimgen.toml"
    config.write_text('prefix = "zz_"\npatterns = []\nsymbols_from = ["build/libboth.a"]\nexclude = ["gdata2"]\n'
                      'rename = "auto"\n')
    result = run_cli("generate", "-c", config)
    assert result.code == 0, result.err
    assert "warning: symbols_from: 1 weak definitions renamed" in result.err and "wfun" in result.err
    manifest = json.loads((objects / "generated" / "manifest.json").read_text())
    by_name = {s["name"]: s for s in manifest["shims"]}
    assert by_name["other_fun"]["defined_in"] == {"file": "build/libboth.a", "member": "more.o"}
    assert by_name["wfun"]["binding"] == "weak"
    assert manifest["symbols_from"]["excluded"] == ["gdata2"]
    assert {s["name"] for s in manifest["symbols_from"]["skipped"]} == {"zz_already", "__reserved_helper"}
    # The unprefixed objects export every name unprefixed: check-symbols says so (SG001).
    check = run_cli("check-symbols", "-c", config, objects / "build" / "lib.o")
    assert check.code == 1 and "SG001" in check.out and "gfun" in check.out


def test_symbols_from_may_not_leave_the_project(write_config, run_cli):
    config = write_config('prefix = "zz_"\nsymbols_from = ["../elsewhere/*.o"]\n')
    result = run_cli("generate", "-c", config)
    assert result.code == 2 and "leaves the project directory" in result.err


def test_macho_object_underscore_stripped_and_weak_read(tmp_path):
    """A real Mach-O object (zig cc is clang): names arrive without the leading underscore, and a
    weak definition (N_WEAK_DEF) is reported as weak."""
    import sys

    pytest.importorskip("ziglang")
    (tmp_path / "lib.c").write_text(LIBRARY.replace("#include <string.h>\n", "").replace(
        "memcpy(d, s, 4)", "d[0] = s[0]"))
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", "x86_64-macos", "-fno-sanitize=undefined",
                    "-c", str(tmp_path / "lib.c"), "-o", str(tmp_path / "lib.o")], check=True, capture_output=True)
    found = read_symbols_from(tmp_path, tmp_path / "shimgen.toml", ["lib.o"], prefix="zz_")
    assert {"gfun", "wfun", "gdata", "hfun", "copy"} <= set(found.names)
    assert not any(name.startswith("_gfun") for name in found.names)
    assert [s.name for s in found.weak] == ["wfun"]
