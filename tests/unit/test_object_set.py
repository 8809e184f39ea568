"""What joins the rename set from compiled objects, and what is demanded of the prefixed library
(issue 23, items 2, 5, 6): hidden globals are renamed but not required or exported; weak hooks in
the library's own name space are renamed; C++ names that stay unprefixed stay exported. Pure:
symbols are given as values, no compiler."""

from __future__ import annotations

from pathlib import Path

from shimgen.project.config import parse_config
from shimgen.project.objects import HOOK, DefinedSymbol, collect
from shimgen.project.shims import Shim, ShimSet


def sym(name: str, binding: str = "global", *, exported: bool = True, file: str = "a.o") -> DefinedSymbol:
    return DefinedSymbol(name, file, None, binding, "func", exported=exported)


def test_a_hidden_global_is_renamed_but_marked_not_exported() -> None:
    found = collect([sym("OPENSSL_malloc"), sym("OPENSSL_ia32cap_P", exported=False)], prefix="vnd_")
    assert found.names == ("OPENSSL_ia32cap_P", "OPENSSL_malloc")
    assert {s.name: s.exported for s in found.renamed} == {"OPENSSL_ia32cap_P": False, "OPENSSL_malloc": True}


def test_the_most_constraining_visibility_wins_across_objects() -> None:
    # As the ELF linker decides: one hidden definition makes the name hidden in the output.
    found = collect([sym("f", "weak", file="a.o"), sym("f", "weak", exported=False, file="b.o")], prefix="vnd_")
    assert [s.exported for s in found.renamed] == [False]


def test_weak_hooks_in_the_library_name_space_are_renamed_others_listed() -> None:
    found = collect([sym("OPENSSL_malloc"), sym("OPENSSL_memory_alloc", HOOK, exported=False),
                     sym("pthread_once", HOOK, exported=False), sym("__gmon_start__", HOOK, exported=False),
                     sym("OPENSSL_free"), sym("OPENSSL_free", HOOK, exported=False)], prefix="vnd_")
    assert found.names == ("OPENSSL_free", "OPENSSL_malloc", "OPENSSL_memory_alloc")
    assert [s.name for s in found.hooks] == ["OPENSSL_memory_alloc"]
    assert found.renamed[0].binding == "global"  # a reference to a defined name is just a use
    assert found.weak_references == ("__gmon_start__", "pthread_once")
    warnings = "\n".join(found.warnings())
    assert "1 weak hooks" in warnings and "OPENSSL_memory_alloc" in warnings and "pthread_once" in warnings


def test_exported_cpp_names_stay_exported_hidden_ones_do_not() -> None:
    found = collect([sym("_ZN4bssl10spake2plus6Prover4InitEv"), sym("_ZN4bssl8internal3fooEv", exported=False),
                     sym("EVP_sha256")], prefix="vnd_")
    assert found.kept_exports == ("_ZN4bssl10spake2plus6Prover4InitEv",)
    assert "stay unprefixed and exported" in "\n".join(found.warnings())


def test_required_and_export_lists_follow_the_unprefixed_exports(tmp_path: Path, monkeypatch) -> None:
    from shimgen.project import shims as shims_module

    config = parse_config({"prefix": "vnd_", "symbols_from_targets": ["crypto"]}, path=tmp_path / "shimgen.toml")
    found = collect([sym("OPENSSL_malloc"), sym("OPENSSL_ia32cap_P", exported=False),
                     sym("OPENSSL_memory_alloc", HOOK, exported=False), sym("_ZN4bssl3fooEv")], prefix="vnd_")
    monkeypatch.setattr(shims_module, "read_symbols_from", lambda *args, **kwargs: found)
    shimset: ShimSet = shims_module.resolve_shims(config, objects=[(tmp_path / "a.o", "a.o")])
    by_name: dict[str, Shim] = {s.name: s for s in shimset.shims}
    assert set(by_name) == {"OPENSSL_malloc", "OPENSSL_ia32cap_P", "OPENSSL_memory_alloc"}
    assert [s.name for s in shimset.required] == ["OPENSSL_malloc"]
    assert shimset.exported_names() == ("_ZN4bssl3fooEv", "vnd_OPENSSL_malloc")


def test_a_vendoring_manifest_carries_no_aoti_defaults(tmp_path: Path) -> None:
    from shimgen.generate.render import manifest_text
    from shimgen.project.shims import resolve_shims

    config = parse_config({"prefix": "vnd_", "library": "boringssl", "symbols": ["OPENSSL_malloc"],
                           "symbols_from_targets": ["crypto"]}, path=tmp_path / "shimgen.toml")
    assert config.patterns == () and config.export_macro == "SHIMGEN_BORINGSSL_EXPORT"
    assert config.build_macro == "SHIMGEN_BORINGSSL_BUILDING"
    text = manifest_text(config, resolve_shims(config, pending=True))
    assert "aoti" not in text.lower()
    # What the user writes wins; a config without objects keeps the AOTInductor defaults.
    given = parse_config({"prefix": "vnd_", "patterns": ["OPENSSL_*"], "export_macro": "OPENSSL_EXPORT",
                          "symbols_from_targets": ["crypto"]}, path=tmp_path / "shimgen.toml")
    assert given.patterns == ("OPENSSL_*",) and given.export_macro == "OPENSSL_EXPORT"
    plain = parse_config({"prefix": "vnd_", "symbols": ["f"]}, path=tmp_path / "shimgen.toml")
    assert plain.patterns == ("aoti_torch_*",) and plain.export_macro == "AOTI_SHIM_EXPORT"
