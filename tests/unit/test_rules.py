"""Every rule on hand-made Binary values (no compiler), plus policy, renderers, schema, docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shimgen.binary.symbols import Binary
from shimgen.check import check_binaries, render_json, render_sarif, render_text
from shimgen.check.policy import Policy, names_starting
from shimgen.check.report import schema_path
from shimgen.check.rules import RULES, rules_markdown, run_rules
from shimgen.errors import InputError, UsageError

ROOT = Path(__file__).resolve().parents[2]
P = "executorch_"


def so(path="lib.so", exports=(), imports=(), tls=(), hidden=(), kind="shared", member=None):
    return Binary(path, member, "ELF", kind, frozenset(exports), frozenset(imports), frozenset(tls), tuple(hidden))


def obj(path, member, exports=(), imports=()):
    return so(path, exports, imports, kind="object", member=member)


POLICY = Policy(P, patterns=("aoti_torch_*",), shims=("aoti_torch_a", "aoti_torch_b"),
                required=("aoti_torch_a", "aoti_torch_b"), allow=("my_runtime_*",), exports=("caller_stream_set",))


def codes(findings):
    return sorted((f.code, f.symbol) for f in findings)


def test_clean_library_has_no_findings():
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b"], imports=["malloc"])
    assert run_rules(POLICY, [lib], strict=True) == []


def test_sg001_unprefixed_shim_exported():
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b", "aoti_torch_c", "other"])
    assert codes(run_rules(POLICY, [lib])) == [("SG001", "aoti_torch_c")]


def test_sg001_explicit_shim_name_outside_patterns():
    policy = Policy(P, shims=("make_thing",))
    assert codes(run_rules(policy, [so(exports=["make_thing", "make_things"])])) == [("SG001", "make_thing")]


def test_sg002_required_missing_and_sg003_hidden():
    lib = so(exports=[P + "aoti_torch_a"], hidden=[])
    assert codes(run_rules(POLICY, [lib])) == [("SG002", P + "aoti_torch_b")]
    hidden = so(exports=[P + "aoti_torch_a"], hidden=[P + "aoti_torch_b"])
    assert codes(run_rules(POLICY, [hidden])) == [("SG003", P + "aoti_torch_b")]


def test_sg002_names_the_dropped_archive_member():
    lib = so(exports=[P + "aoti_torch_a"])
    kept = obj("libshim.a", "a.o", exports=[P + "aoti_torch_a"])
    dropped = obj("libshim.a", "b.o", exports=[P + "aoti_torch_b"])
    (finding,) = run_rules(POLICY, [lib, kept, dropped])
    assert finding.code == "SG002" and "libshim.a(b.o)" in finding.message and "dropped" in finding.message


def test_sg002_total_loss_is_reported_on_the_library():
    # A shim library that lost every shim still answers; a consumer does not.
    empty = so("libshim.so", exports=["unrelated"])
    consumer = so("model.so", imports=[P + "aoti_torch_a"])
    found = run_rules(POLICY, [empty, consumer])
    assert {(f.code, f.path) for f in found} == {("SG002", "libshim.so")}
    assert len(found) == 2


def test_sg002_not_applied_to_consumers_alone_or_without_required():
    consumer = so("model.so", imports=[P + "aoti_torch_a"])
    assert run_rules(POLICY, [consumer]) == []
    assert run_rules(Policy(P, patterns=("aoti_torch_*",)), [so(exports=["x"])]) == []


def test_sg004_unprefixed_shim_imported():
    model = so("model.so", imports=["aoti_torch_a", P + "aoti_torch_b", "free"])
    assert codes(run_rules(POLICY, [model])) == [("SG004", "aoti_torch_a")]


def test_sg005_double_prefix_on_exports_and_imports():
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b", P + P + "aoti_torch_x"], imports=[P + P + "aoti_torch_y"])
    assert codes(run_rules(POLICY, [lib], strict=True)) == [
        ("SG005", P + P + "aoti_torch_x"), ("SG005", P + P + "aoti_torch_y")]


def test_sg006_only_under_strict_and_respects_allow_exports_and_linker_symbols():
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b", "helper", "my_runtime_init", "caller_stream_set", "_init",
                      "_ZNSt6vectorIiSaIiEED2Ev"])
    assert run_rules(POLICY, [lib]) == []
    assert codes(run_rules(POLICY, [lib], strict=True)) == [("SG006", "_ZNSt6vectorIiSaIiEED2Ev"), ("SG006", "helper")]


def test_sg006_ignores_objects_and_defers_to_sg001():
    assert run_rules(POLICY, [obj("x.a", "x.o", exports=["helper"])], strict=True) == []
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b", "aoti_torch_c"])
    assert codes(run_rules(POLICY, [lib], strict=True)) == [("SG001", "aoti_torch_c")]


def test_sg007_duplicate_shim_and_thread_local():
    one = so("one.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b", "stream"], tls=["stream"])
    two = so("two.so", exports=[P + "aoti_torch_a", "stream"], tls=["stream"])
    found = run_rules(POLICY, [one, two])
    assert sorted((f.code, f.symbol, f.path) for f in found) == [
        ("SG007", P + "aoti_torch_a", "one.so"), ("SG007", P + "aoti_torch_a", "two.so"),
        ("SG007", "stream", "one.so"), ("SG007", "stream", "two.so")]
    assert any("thread-local" in f.message for f in found)


def test_sg007_ignores_archives_given_alongside():
    lib = so(exports=[P + "aoti_torch_a", P + "aoti_torch_b"])
    member = obj("libshim.a", "a.o", exports=[P + "aoti_torch_a", P + "aoti_torch_b"])
    assert run_rules(POLICY, [lib, member]) == []


def test_sg008_unresolved_prefixed_import():
    provider = so("libshim.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b"])
    consumer = so("model.so", imports=[P + "aoti_torch_a", P + "aoti_torch_zz"])
    assert codes(run_rules(POLICY, [provider, consumer])) == [("SG008", P + "aoti_torch_zz")]
    # Without a provider among the paths there is nothing to resolve against.
    assert run_rules(POLICY, [consumer]) == []


def test_findings_are_deterministic_and_sorted_per_rule():
    lib = so(exports=[f"aoti_torch_{c}" for c in "zyxw"])
    policy = Policy(P, patterns=("aoti_torch_*",))
    first = [f.symbol for f in run_rules(policy, [lib])]
    assert first == sorted(first) and len(first) == 4


def test_names_starting_is_exact_even_with_newlines_in_names():
    names = frozenset(["aoti_torch_a", "x\naoti_torch_evil", "aoti_torchx", "b"])
    assert names_starting(names, "aoti_torch_") == ["aoti_torch_a"]
    assert names_starting(["a", "ab", "ba"], "a") == ["a", "ab"]


@pytest.mark.parametrize("pattern", ["aoti_torch_*", "*_stream*", "a?ti_*", "[ab]oti_*", "[!b]oti_torch_e*", "x[", "[]]"])
def test_shims_among_agrees_with_is_shim(pattern):
    names = ["aoti_torch_empty", "boti_x", "cuda_stream_get", "executorch_aoti_torch_empty", "x[", "]", "zzz"]
    policy = Policy(P, patterns=(pattern,), shims=("zzz",))
    assert sorted(policy.shims_among(names)) == sorted(n for n in names if policy.is_shim(n))


def test_policy_rejects_bad_prefix_and_manifest(tmp_path):
    with pytest.raises(UsageError):
        Policy("__bad")
    bad = tmp_path / "manifest.json"
    bad.write_text('{"schema": "other"}')
    with pytest.raises(InputError, match="not a shimgen manifest"):
        Policy.from_manifest(bad)
    bad.write_text("{")
    with pytest.raises(InputError, match="not valid JSON"):
        Policy.from_manifest(bad)


def test_policy_from_config_and_manifest_agree(tmp_path):
    from shimgen.generate.render import manifest_text
    from shimgen.project.config import load_config
    from shimgen.project.shims import resolve_shims

    (tmp_path / "shimgen.toml").write_text(
        'prefix = "ex_"\nsymbols = ["aoti_torch_a", "aoti_torch_b"]\nrequired = ["aoti_torch_a"]\nallow = ["ok_*"]\n')
    config = load_config(tmp_path / "shimgen.toml")
    shimset = resolve_shims(config)
    (tmp_path / "manifest.json").write_text(manifest_text(config, shimset))
    a = Policy.from_config(config, shimset)
    b = Policy.from_manifest(tmp_path / "manifest.json")
    for field in ("prefix", "patterns", "shims", "required", "allow", "exports"):
        assert getattr(a, field) == getattr(b, field), field
    assert a.required == ("aoti_torch_a",)


def _sample_report(strict=True):
    lib = so("lib.so", exports=["aoti_torch_c", "_ZNSt6vectorIiSaIiEED2Ev", P + "aoti_torch_a"])
    member = obj("libshim.a", "b.o", exports=[P + "aoti_torch_b"])
    return check_binaries([lib, member], POLICY, strict=strict)


def test_report_exit_code_and_text_grouping():
    report = _sample_report()
    assert report.exit_code == 1
    text = render_text(report, color=False)
    assert "\033[" not in text
    assert text.splitlines()[0].startswith("lib.so")
    assert "SG001 aoti_torch_c" in text and "std::vector<int, std::allocator<int> >::~vector()" in text
    assert "\033[31m" in render_text(report, color=True)
    clean = check_binaries([so(exports=[P + "aoti_torch_a", P + "aoti_torch_b"])], POLICY)
    assert clean.exit_code == 0 and render_text(clean).startswith("clean:")


def test_json_report_validates_against_shipped_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(schema_path().read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads(render_json(_sample_report()))
    jsonschema.validate(data, schema)
    assert data["summary"]["by_code"]["SG001"] == 1 and data["summary"]["exit_code"] == 1
    assert {f["code"] for f in data["findings"]} == {"SG001", "SG002", "SG006"}
    # The schema is strict: a renamed field would fail validation.
    data["files"][0]["exprts"] = data["files"][0].pop("exports")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_sarif_has_rule_descriptors_from_metadata_and_results():
    sarif = json.loads(render_sarif(_sample_report()))
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(RULES)
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]


@pytest.mark.parametrize("doc_path", ["docs/check-symbols.md", "README.md"])
def test_docs_rule_table_matches_metadata(doc_path):
    doc = (ROOT / doc_path).read_text()
    table = re.search(r"<!-- rules:begin -->\n(.*?)<!-- rules:end -->", doc, re.S)
    assert table, f"{doc_path} lacks the rules:begin/rules:end markers"
    assert table.group(1) == rules_markdown(), "regenerate with: python -m shimgen.check.rules"


def test_rule_metadata_is_complete():
    assert list(RULES) == [f"SG{i:03d}" for i in range(1, len(RULES) + 1)]
    for rule in RULES.values():
        assert rule.severity in ("error", "warning") and rule.title and rule.hint and "\n" not in rule.hint


def test_fat_slices_are_one_provider_but_each_must_hold_every_required_shim():
    both = [P + "aoti_torch_a", P + "aoti_torch_b"]
    x86 = Binary("fat.dylib", "x86_64", "Mach-O", "shared", frozenset(both), frozenset(), slice_of="fat.dylib")
    arm = Binary("fat.dylib", "arm64", "Mach-O", "shared", frozenset(both[:1]), frozenset(), slice_of="fat.dylib")
    found = run_rules(POLICY, [x86, arm])
    assert [(f.code, f.symbol, f.member) for f in found] == [("SG002", P + "aoti_torch_b", "arm64")]
    other = so("other.dylib", exports=[P + "aoti_torch_a"])
    dup = [f for f in run_rules(POLICY, [x86, arm, other]) if f.code == "SG007"]
    assert {f.member for f in dup} == {"x86_64", "arm64", None}
    assert all("fat.dylib" in f.message or f.path == "fat.dylib" for f in dup)


def test_sg002_names_the_cause_when_the_plain_name_is_defined_instead():
    """Issue 23, item 3: a `#define X X` in a library header (or a C++ declaration the pragma did
    not reach) compiles the plain name; SG002 then says so instead of "link the shim objects whole"."""
    lib = so(exports={P + "aoti_torch_a"}, hidden={"aoti_torch_b"})
    (finding,) = [f for f in run_rules(POLICY, [lib]) if f.code == "SG002"]
    assert "plain name aoti_torch_b is defined instead" in finding.message
    assert "#define X X" in finding.hint and "shimgen lint" in finding.hint and "whole" not in finding.hint
    dropped = so(exports={P + "aoti_torch_a"})
    (other,) = [f for f in run_rules(POLICY, [dropped]) if f.code == "SG002"]
    assert "whole" in other.hint


def test_sg008_leaves_weak_hooks_alone(tmp_path):
    """Issue 23, item 6: a renamed weak hook (OPENSSL_memory_alloc) is imported and exported by no
    one until an application provides it; from the config's shim set or the manifest alike."""
    import json

    lib = so(exports={P + "aoti_torch_a", P + "aoti_torch_b"}, imports={P + "aoti_torch_hook"})
    plain = Policy(P, shims=("aoti_torch_a", "aoti_torch_b", "aoti_torch_hook"), required=("aoti_torch_a",))
    assert codes(run_rules(plain, [lib])) == [("SG008", P + "aoti_torch_hook")]
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"schema": "shimgen-manifest/1", "prefix": P, "shims": [
        {"name": "aoti_torch_a", "required": True}, {"name": "aoti_torch_b", "required": False},
        {"name": "aoti_torch_hook", "required": False, "binding": "hook"}]}))
    assert codes(run_rules(Policy.from_manifest(manifest), [lib])) == []


def test_sg006_allows_the_platform_entry_points_of_a_wheel():
    """A Python extension module exports PyInit_<name> by design (and the linker _init/_fini):
    --strict on a wheel reports only what else it exports."""
    module = so("etree.so", exports=["PyInit_etree", "_init", "_fini", "xmlParseDoc", "PyInit"])
    assert codes(run_rules(Policy.from_options("p_"), [module], strict=True)) == [
        ("SG006", "PyInit"), ("SG006", "xmlParseDoc")]
    # The allow list adds to the entry points, it does not replace them.
    allowing = Policy(P, patterns=("aoti_torch_*",), allow=("xml*",))
    assert run_rules(allowing, [so("etree.so", exports=["PyInit_etree", "xmlParseDoc"])], strict=True) == []


# Issue 23: a group checked together (the ExecuTorch shape: shim library, backend, tests) ---------------


def test_strict_judges_the_shim_library_not_its_dependents():
    lib = so("libshims.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b", "helper"])
    backend = so("libbackend.so", exports=["backend_init", "_ZN2et7Backend4initEv"], imports=[P + "aoti_torch_a"])
    assert codes(run_rules(POLICY, [lib, backend], strict=True)) == [("SG006", "helper")]


def test_strict_still_judges_a_binary_checked_alone_or_one_exporting_shims():
    backend = so("libbackend.so", exports=["backend_init"], imports=[P + "aoti_torch_a"])
    assert codes(run_rules(POLICY, [backend], strict=True)) == [("SG006", "backend_init")]
    copy = so("libcopy.so", exports=[P + "aoti_torch_a", "x"], imports=[P + "aoti_torch_b"])
    lib = so("libshims.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b"])
    assert ("SG006", "x") in codes(run_rules(POLICY, [lib, copy], strict=True))


def test_sg010_dependent_imports_what_the_library_hides():
    mangled = "_ZN8executorch8backends4cuda13CudaAllocator8instanceEv"
    lib = so("libshims.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b"], hidden=[mangled, "aoti_torch_q"])
    test = so("test_allocator", kind="executable", imports=[mangled, "malloc", "aoti_torch_q"])
    findings = run_rules(POLICY, [lib, test])
    assert codes(findings) == [("SG004", "aoti_torch_q"), ("SG011", mangled)]
    (sg011,) = [f for f in findings if f.code == "SG011"]
    assert sg011.path == "test_allocator" and "libshims.so" in sg011.message
    # Exported by another binary of the set: nothing hidden is missed.
    other = so("libother.so", exports=[mangled])
    assert "SG011" not in {f.code for f in run_rules(POLICY, [lib, test, other])}


def test_hidden_import_candidates_are_the_imports_nobody_exports():
    from shimgen.check.rules import hidden_import_candidates

    lib = so("libshims.so", exports=[P + "aoti_torch_a", "shared_helper"])
    user = so("user.so", imports=["shared_helper", "hidden_one", P + "aoti_torch_a"])
    assert hidden_import_candidates([lib, user]) == {"hidden_one"}
    assert hidden_import_candidates([user]) == set()


def test_sg002_for_a_shim_exported_unprefixed_names_the_rename_not_the_link():
    lib = so(exports=[P + "aoti_torch_a", "aoti_torch_b"])
    findings = run_rules(POLICY, [lib])
    assert codes(findings) == [("SG001", "aoti_torch_b"), ("SG002", P + "aoti_torch_b")]
    (sg002,) = [f for f in findings if f.code == "SG002"]
    assert "exported unprefixed as aoti_torch_b" in sg002.message
    assert "whole" not in sg002.hint and "force-include" in sg002.hint
    (dropped,) = run_rules(POLICY, [so(exports=[P + "aoti_torch_a"])])
    assert "link the shim objects whole" in dropped.hint


def test_required_per_build_replaces_the_config_set():
    cpu = POLICY.requiring(["aoti_torch_a"])
    assert cpu.required == ("aoti_torch_a",)
    assert run_rules(cpu, [so(exports=[P + "aoti_torch_a"])]) == []
    assert POLICY.requiring([]) is POLICY
    with pytest.raises(UsageError, match="--required 'aoti_torch_cuda_\\*' matches no shim"):
        POLICY.requiring(["aoti_torch_cuda_*"])


def test_strict_exempts_a_dependent_that_calls_only_the_library_cpp_api():
    """ExecuTorch's test_cuda_allocator imports CudaAllocator::instance() and no shim; as an
    executable it exports the vague-linkage std:: symbols the library also uses."""
    allocator = "_ZN10executorch8backends4cuda13CudaAllocator8instanceEv"
    lib = so("libshims.so", exports=[P + "aoti_torch_a", P + "aoti_torch_b", allocator])
    test = so("test_cuda_allocator", kind="executable", exports=["_ZNKSt5ctypeIcE8do_widenEc"],
              imports=[allocator, "malloc"])
    unrelated = so("libother.so", exports=["other_api"], imports=["malloc"])
    policy = Policy(P, patterns=("aoti_torch_*",), exports=("executorch::backends::cuda::*",))
    assert codes(run_rules(policy, [lib, test, unrelated], strict=True)) == [("SG006", "other_api")]
