"""The generated .bzl's force-include helper, evaluated as the Python subset Starlark is."""

from __future__ import annotations

from pathlib import Path

from shimgen.generate.render import render
from shimgen.project.config import parse_config
from shimgen.project.shims import resolve_shims


def bzl_namespace(tmp_path: Path) -> dict:
    config = parse_config({"prefix": "vnd_", "macro": "VND_PREFIX", "symbols": ["ZSTD_compress"]},
                          path=tmp_path / "shimgen.toml")
    rendered = render(config, resolve_shims(config))
    text = next(content for path, content in rendered.items() if path.suffix == ".bzl").decode()

    def fail(message: str) -> None:
        raise AssertionError(message)

    namespace: dict = {"fail": fail}
    exec(compile(text, "shimgen.bzl", "exec"), namespace)
    return namespace


def test_force_include_kwargs_extend_the_library_arguments(tmp_path: Path) -> None:
    helper = bzl_namespace(tmp_path)["shim_force_include_kwargs"]
    result = helper("//generated:export.h", "generated/export.h", name="zstd", srcs=["zstd.c"],
                    copts=["-O2"], defines=["ZSTD_MULTITHREAD"], hdrs=["zstd.h"])
    assert result["copts"] == ["-O2", "-include", "generated/export.h"]
    assert result["defines"] == ["ZSTD_MULTITHREAD", "VND_PREFIX=vnd_"]
    assert result["hdrs"] == ["zstd.h", "//generated:export.h"]
    assert result["name"] == "zstd" and result["srcs"] == ["zstd.c"]


def test_force_include_kwargs_do_not_repeat_the_header(tmp_path: Path) -> None:
    helper = bzl_namespace(tmp_path)["shim_force_include_kwargs"]
    result = helper("//g:export.h", "g/export.h", hdrs=["//g:export.h"])
    assert result["hdrs"] == ["//g:export.h"] and result["copts"] == ["-include", "g/export.h"]


def test_buck_force_include_reaches_dependents_and_links_whole(tmp_path: Path) -> None:
    """Buck2's cxx_library: `preprocessor_flags` stop at the library, `exported_preprocessor_flags`
    also apply to every rule depending on it (prelude/decls); ExecuTorch's runtime_shims keeps its own
    `preprocessor_flags = ["-DCUDA_AVAILABLE=1"]` and `.cu` sources, which these flags reach too."""
    helper = bzl_namespace(tmp_path)["shim_force_include_kwargs"]
    result = helper("//generated:export.h", build_system="buck", name="runtime_shims",
                    srcs=["shims/memory.cpp", "shims/sort.cu"], preprocessor_flags=["-DCUDA_AVAILABLE=1"],
                    exported_preprocessor_flags=["-DKEEP"])
    assert result["exported_preprocessor_flags"] == [
        "-DKEEP", "-include", "$(location //generated:export.h)", "-DVND_PREFIX=vnd_"]
    assert result["preprocessor_flags"] == ["-DCUDA_AVAILABLE=1"]  # the library's own, untouched
    assert result["link_whole"] is True
    assert "copts" not in result and "defines" not in result


def test_buck_library_kwargs_export_the_definition(tmp_path: Path) -> None:
    helper = bzl_namespace(tmp_path)["shim_library_kwargs"]
    result = helper(build_system="buck", name="s", preprocessor_flags=["-DX"])
    assert result["exported_preprocessor_flags"] == ["-DVND_PREFIX=vnd_"]
    assert result["preprocessor_flags"] == ["-DX"] and result["link_whole"] is True


def test_bazel_force_include_needs_the_header_path(tmp_path: Path) -> None:
    import pytest

    helper = bzl_namespace(tmp_path)["shim_force_include_kwargs"]
    with pytest.raises(AssertionError, match="needs header_path"):
        helper("//g:export.h")
    with pytest.raises(AssertionError, match="must be"):
        helper("//g:export.h", "g/export.h", build_system="make")
