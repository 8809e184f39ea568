"""The pieces of the one-pass build that need no compiler: the config key, the object list, the
split between what configure and the build step write, and the records shimgen build reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from shimgen.builder.builder import parse_record
from shimgen.errors import ConfigError, InputError, ToolError, UsageError
from shimgen.generate.render import INDEX_FILE, generate
from shimgen.project.config import parse_config
from shimgen.project.objects import object_list
from shimgen.project.shims import resolve_shims


def config(tmp_path: Path, **extra):
    return parse_config({"prefix": "vnd_", **extra}, path=tmp_path / "shimgen.toml")


def test_symbols_from_targets_alone_is_a_valid_config(tmp_path: Path) -> None:
    assert config(tmp_path, symbols_from_targets=["zstd"]).symbols_from_targets == ("zstd",)


@pytest.mark.parametrize(("targets", "message"), [
    (["bad name"], "'bad name' is not a CMake target name"),
    (["z", "z"], "'z' is listed twice"),
])
def test_symbols_from_targets_checks_its_names(tmp_path: Path, targets: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config(tmp_path, symbols_from_targets=targets)


def test_the_set_of_a_target_config_needs_its_objects(tmp_path: Path) -> None:
    cfg = config(tmp_path, symbols_from_targets=["zstd"])
    with pytest.raises(ConfigError, match="comes from the objects of the CMake targets zstd"):
        resolve_shims(cfg)
    assert resolve_shims(cfg, pending=True).shims == ()  # the first configure: no names yet


def test_configure_and_build_step_write_disjoint_files(tmp_path: Path) -> None:
    cfg = config(tmp_path, symbols=["ZSTD_compress"], symbols_from_targets=["zstd"])
    configure = generate(cfg, cmake_only=True)
    assert {p.name for p in configure.written} == {INDEX_FILE, "shimgen.cmake"}
    build = generate(cfg, skip_cmake=True)
    assert INDEX_FILE not in {p.name for p in build.written} and "export.h" in {p.name for p in build.written}
    assert not set(configure.written) & set(build.written)
    # Together they are everything a plain generate writes: nothing is left for a third writer.
    assert generate(cfg).written == () and len(generate(cfg).unchanged) == len(configure.written) + len(build.written)


def test_object_list_labels_and_errors(tmp_path: Path) -> None:
    (tmp_path / "CMakeFiles" / "t.dir").mkdir(parents=True)
    inside = tmp_path / "CMakeFiles" / "t.dir" / "a.c.o"
    inside.write_bytes(b"")
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.o"
    outside.write_bytes(b"")
    listing = tmp_path / "t.shimgen-objects.txt"
    listing.write_text(f"{inside}\n\n{outside}\n")
    assert object_list(listing) == [(inside, "CMakeFiles/t.dir/a.c.o"), (outside, outside.as_posix())]
    listing.write_text("\n")
    with pytest.raises(InputError, match="the object list is empty"):
        object_list(listing)
    listing.write_text("gone.o\n")
    with pytest.raises(InputError, match=r"lists 'gone\.o', which does not exist"):
        object_list(listing)
    with pytest.raises(InputError, match="cannot read the object list"):
        object_list(tmp_path / "missing.txt")


def test_records(tmp_path: Path) -> None:
    record = parse_record("z", "config=/p/shimgen.toml\ngenerated=/b/g\nobjects=/b/z.txt\nartifact=\n")
    assert record.artifact is None and record.objects == Path("/b/z.txt")
    with pytest.raises(ToolError, match="lacks objects, artifact"):
        parse_record("z", "config=/p/shimgen.toml\ngenerated=/b/g\n")


def test_generate_target_options(tmp_path: Path) -> None:
    from shimgen.commands.generate import target_objects

    cfg = config(tmp_path, symbols_from_targets=["zstd"])
    listing = tmp_path / "zstd.shimgen-objects.txt"
    with pytest.raises(UsageError, match="go together"):
        target_objects(cfg, "zstd", None, cmake_only=False)
    with pytest.raises(UsageError, match="does not name it in symbols_from_targets"):
        target_objects(cfg, "other", listing, cmake_only=False)
    assert target_objects(cfg, "zstd", listing, cmake_only=True) == ([], True)  # not built yet
    listing.write_text("a.o\n")
    assert target_objects(cfg, "zstd", listing, cmake_only=True) == ([], True)  # listed, not built (clean)
    with pytest.raises(InputError):
        target_objects(cfg, "zstd", listing, cmake_only=False)  # the build step needs them
