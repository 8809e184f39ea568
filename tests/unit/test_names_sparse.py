"""Names built from a string table: the same names whether few of a big table (cut out one by
one) or many (the table decoded and split once), suffix-merged and non-ASCII names included."""

from __future__ import annotations

from shimgen.binary.symbols import Names


def _table(names: list[str], filler: int) -> tuple[bytes, dict[str, int]]:
    table, at = b"\0", {}
    for name in names:
        at[name] = len(table)
        table += name.encode() + b"\0"
    return table + b"x" * filler + b"\0", at


def test_few_and_many_names_of_one_table_agree():
    names = ["use_helper", "caf\u00e9_init", "_ZN3re25hooks7contextE", "plain"]
    for filler in (0, 1 << 16):  # 0: many offsets per byte (whole-table path); 64 KiB: the sparse path
        table, at = _table(names, filler)
        offsets = [at["use_helper"], at["use_helper"] + 4, at["caf\u00e9_init"], at["plain"]]  # +4: "helper"
        built = Names.from_table(table, offsets)
        assert set(built) == {"use_helper", "helper", "caf\u00e9_init", "plain"}, filler
        assert built.materialized and len(built) == 4
