"""Names.having: one pass over a string table for many whole names (SG009's anchors)."""

from __future__ import annotations

from shimgen.binary.symbols import Names


def _table(*entries: str) -> tuple[bytes, dict[str, int]]:
    strings, offsets = b"\0", {}
    for entry in entries:
        offsets[entry] = len(strings)
        strings += entry.encode() + b"\0"
    return strings, offsets


def test_whole_exported_entries_only():
    strings, at = _table("__cxa_throw", "x__cxa_rethrow", "__cxa_begin_catch", "omp_get_thread_num", "GOMP_parallel")
    # Exported: all but GOMP_parallel (an import shares the table); "__cxa_rethrow" occurs only as
    # the tail of another name, which linkers do to merge suffixes, but is not itself an entry.
    exports = Names.from_table(strings, [at["__cxa_throw"], at["x__cxa_rethrow"], at["__cxa_begin_catch"],
                                         at["omp_get_thread_num"]])
    wanted = ["__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch", "GOMP_parallel", "omp_get_thread_num", "__cxa"]
    assert exports.having(wanted) == {"__cxa_throw", "__cxa_begin_catch", "omp_get_thread_num"}


def test_table_and_plain_sets_agree():
    strings, at = _table("a", "ab", "b", "abc", "c")
    table = Names.from_table(strings, [at["ab"], at["c"]])
    plain = Names(["ab", "c"])
    for wanted in (["a"], ["ab"], ["b", "c"], ["abc", "ab", "a"], []):
        assert table.having(wanted) == plain.having(wanted) == {n for n in wanted if n in {"ab", "c"}}


def test_starting_with_few_names_in_a_big_table():
    # Imports share .dynstr with thousands of exports: few offsets, a big text (the per-name path).
    entries = [f"export_{i}_aoti_torch_x" for i in range(3000)] + ["aoti_torch_a", "aoti_torch_b", "other"]
    strings, at = _table(*entries)
    few = Names.from_table(strings, [at["aoti_torch_a"], at["other"], at["export_7_aoti_torch_x"]])
    assert len(few._offsets) * 512 < len(strings)
    assert few.starting_with("aoti_torch_") == ["aoti_torch_a"]
    assert few.starting_with("export_7") == ["export_7_aoti_torch_x"]
    # Many offsets: the text-search path, same answers as the plain set.
    many = Names.from_table(strings, list(at.values()))
    plain = Names(entries)
    for literal in ("aoti_torch_", "export_29", "oth", "zzz"):
        assert many.starting_with(literal) == plain.starting_with(literal)
