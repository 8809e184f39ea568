"""`exports`: exact names, globs and C++ patterns, as each linker format spells them (issue 23 item 9)."""

from __future__ import annotations

import pytest

from shimgen.check.policy import Policy
from shimgen.generate.render import render
from shimgen.project.config import load_config
from shimgen.project.exports import classify, namespace_globs, problems
from shimgen.project.shims import resolve_shims

EXPORTS = ["et_version", "et_api_*", "executorch::backends::cuda::*",
           "executorch::backends::cuda::CudaAllocator::instance()", "_ZN2et4stubEv"]


@pytest.mark.parametrize(("text", "kind"), [
    ("et_version", "name"), ("et_api_*", "glob"), ("_ZN2et4stubEv", "name"),
    ("ns::*", "cxx"), ("ns::f(int, float)", "cxx"), ("std::vector<int>::size() const", "cxx"),
])
def test_classify(text, kind):
    assert classify(text).kind == kind


@pytest.mark.parametrize("text", ["a;b", 'ns::"x"', "ns::f() }", "x\nlocal: *", "ns::f(int *", "9abc", "a b"])
def test_items_that_could_break_a_linker_file_are_refused(text):
    assert list(problems([text]))


def test_good_items_pass():
    assert list(problems(EXPORTS)) == []


def test_namespace_glob_to_mangled_prefixes():
    assert namespace_globs("executorch::backends::cuda::*") == [
        "_ZN10executorch8backends4cuda*", "_ZNK10executorch8backends4cuda*"]
    assert namespace_globs("ns::f(int)") == []


def test_each_format_spells_what_it_can(write_config):
    body = 'prefix = "et_"\nsymbols = ["aoti_torch_a"]\nexports = [' + ", ".join(f'"{e}"' for e in EXPORTS) + "]\n"
    config = load_config(write_config(body))
    out = {p.name: t.decode() for p, t in render(config, resolve_shims(config)).items()}
    script = out["shimgen.map"]
    assert "    et_api_*;\n" in script and "    et_version;\n" in script and "    _ZN2et4stubEv;\n" in script
    assert ('    extern "C++" {\n      "executorch::backends::cuda::CudaAllocator::instance()";\n'
            "      executorch::backends::cuda::*;\n    };\n") in script
    assert script.index('extern "C++"') < script.index("local:")
    exp = out["shimgen.exp"]
    assert "_et_api_*\n" in exp and "__ZN10executorch8backends4cuda*\n" in exp
    assert "# not expressible in an exported-symbols list (list its mangled name in exports): " \
           "executorch::backends::cuda::CudaAllocator::instance()" in exp
    definition = out["shimgen.def"]
    assert "    et_version\n" in definition and "    et_aoti_torch_a\n" in definition
    assert "    et_api_*" not in definition and "; not expressible in a .def file" in definition


def test_bad_export_is_a_config_error(write_config, run_cli):
    config = write_config('prefix = "et_"\nsymbols = ["aoti_torch_a"]\nexports = ["x; local: *"]\n')
    result = run_cli("generate", "-c", config)
    assert result.code == 2 and "exports" in result.err and "x; local: *" in result.err


def test_strict_allows_what_exports_selects():
    policy = Policy("et_", shims=("aoti_torch_a",), exports=tuple(EXPORTS))
    allocator = "_ZN10executorch8backends4cuda13CudaAllocator8instanceEv"
    assert policy.is_allowed(allocator)
    assert policy.is_allowed("et_api_open") and policy.is_allowed("_ZN2et4stubEv")
    assert not policy.is_allowed("_ZN5other4funcEv") and not policy.is_allowed("et_apx")
    exact = Policy("et_", shims=("aoti_torch_a",), exports=("executorch::backends::cuda::CudaAllocator::instance()",))
    assert exact.is_allowed(allocator)
    assert not exact.is_allowed("_ZN10executorch8backends4cuda13CudaAllocator4freeEPv")
