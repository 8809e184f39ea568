"""Where a project's own headers meet the generated ones (issue 23 items 8, 10, 11): the project's
export macro, a project header named like the generated one, a shim declared twice differently."""

from __future__ import annotations

import pytest

from shimgen.generate.render import generate, render
from shimgen.project.config import load_config
from shimgen.project.shims import resolve_shims

# ExecuTorch's backends/aoti/export.h defines the macro unconditionally (empty off Windows).
PROJECT_EXPORT_H = """\
#pragma once
#ifdef _WIN32
#define AOTI_SHIM_EXPORT __declspec(dllexport)
#else
#define AOTI_SHIM_EXPORT
#endif
"""
SHIMS_H = """\
#include "export.h"
extern "C" {
AOTI_SHIM_EXPORT int aoti_torch_get_numel(void* tensor, long* out);
}
"""


def _header(config_path) -> str:
    config = load_config(config_path)
    return render(config, resolve_shims(config))[config.outputs.path("header")].decode()  # type: ignore[index]


def test_export_macro_left_to_the_project_that_defines_it(write_config):
    config = write_config('prefix = "et_"\nheaders = ["aoti/*.h"]\n[outputs]\nheader = "shimgen_export.h"\n',
                          files={"aoti/export.h": PROJECT_EXPORT_H, "aoti/shims.h": SHIMS_H})
    text = _header(config)
    assert "#define AOTI_SHIM_EXPORT" not in text
    assert "defined by the project (aoti/export.h:3)" in text


def test_export_macro_defined_when_no_scanned_header_does(write_config):
    config = write_config('prefix = "et_"\nheaders = ["aoti/shims.h"]\n', files={"aoti/shims.h": SHIMS_H})
    assert "#    define AOTI_SHIM_EXPORT __attribute__((visibility(\"default\")))" in _header(config)


@pytest.mark.parametrize(("owner", "defined"), [("shimgen", True), ("project", False)])
def test_export_macro_owner_overrides_the_scan(write_config, owner, defined):
    files = {"aoti/export.h": PROJECT_EXPORT_H, "aoti/shims.h": SHIMS_H}
    config = write_config(f'prefix = "et_"\nheaders = ["aoti/shims.h"]\nexport_macro_owner = "{owner}"\n',
                          files=files)
    assert ("define AOTI_SHIM_EXPORT" in _header(config)) is defined


def test_bad_export_macro_owner_is_a_config_error(write_config, run_cli):
    config = write_config('prefix = "et_"\nsymbols = ["aoti_torch_a"]\nexport_macro_owner = "me"\n')
    result = run_cli("generate", "-c", config)
    assert result.code == 2
    assert "export_macro_owner" in result.err and "'project'" in result.err


def test_header_named_like_the_generated_one_warns(write_config, run_cli):
    config = write_config('prefix = "et_"\nheaders = ["aoti/*.h"]\n',
                          files={"aoti/export.h": PROJECT_EXPORT_H, "aoti/shims.h": SHIMS_H})
    result = generate(load_config(config))
    (warning,) = [w for w in result.warnings if "outputs.header" in w]
    assert "aoti/export.h" in warning and "[outputs] header" in warning
    cli = run_cli("generate", "-c", config)
    assert cli.code == 0 and "aoti/export.h" in cli.err


def test_no_warning_once_the_generated_header_is_renamed(write_config):
    config = write_config('prefix = "et_"\nheaders = ["aoti/*.h"]\n[outputs]\nheader = "et_export.h"\n',
                          files={"aoti/export.h": PROJECT_EXPORT_H, "aoti/shims.h": SHIMS_H})
    assert not [w for w in generate(load_config(config)).warnings if "outputs.header" in w]


def test_shim_declared_with_two_signatures_warns(write_config):
    other = SHIMS_H.replace("void* tensor, long* out", "SlimTensor* t, long* out")
    config = write_config('prefix = "et_"\nheaders = ["a/*.h"]\n',
                          files={"a/common_shims.h": SHIMS_H, "a/common_shims_slim.h": other})
    (warning,) = generate(load_config(config)).warnings
    assert "'aoti_torch_get_numel' is declared with two signatures" in warning
    assert "a/common_shims.h:3" in warning and "a/common_shims_slim.h:3" in warning


def test_same_signature_with_other_parameter_names_is_one_shim(write_config):
    other = SHIMS_H.replace("void* tensor, long* out", "void *, long *result")
    config = write_config('prefix = "et_"\nheaders = ["a/*.h"]\n',
                          files={"a/one.h": SHIMS_H, "a/two.h": other})
    assert generate(load_config(config)).warnings == ()


def test_export_macro_found_in_a_header_the_scanned_ones_include(write_config):
    """ExecuTorch's shim headers include <executorch/backends/aoti/export.h>, which defines the
    macro; the config scans only the shim headers."""
    shims = SHIMS_H.replace('#include "export.h"', "#include <et/aoti/export.h>")
    config = write_config('prefix = "et_"\nheaders = ["src/et/cuda/*.h"]\n',
                          files={"src/et/aoti/export.h": PROJECT_EXPORT_H, "src/et/cuda/shims.h": shims})
    assert "defined by the project (src/et/aoti/export.h:3)" in _header(config)


def test_header_defining_the_export_macro_named_like_the_generated_one_warns(write_config):
    """ExecuTorch's shape: the config scans only the shim headers; they include the project's
    export.h (which defines the macro), and the generated header's default name is export.h too."""
    shims = SHIMS_H.replace('#include "export.h"', "#include <et/aoti/export.h>")
    files = {"src/et/aoti/export.h": PROJECT_EXPORT_H, "src/et/cuda/shims.h": shims}
    config = write_config('prefix = "et_"\nheaders = ["src/et/cuda/*.h"]\n', files=files)
    (warning,) = [w for w in generate(load_config(config)).warnings if "outputs.header" in w]
    assert "export-macro project header src/et/aoti/export.h" in warning
    renamed = write_config('prefix = "et_"\nheaders = ["src/et/cuda/*.h"]\n[outputs]\nheader = "et_export.h"\n',
                           files=files)
    assert not [w for w in generate(load_config(renamed)).warnings if "outputs.header" in w]
