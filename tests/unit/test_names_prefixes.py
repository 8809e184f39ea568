"""Names.starting_with_any: one pass over a string table's names for many prefixes gives exactly
what a startswith over every name gives, whichever path answers (a startswith per candidate for
few prefixes, one alternation for many, a materialised set), in a small table or a large one, names
stored as the tail of a longer one (linkers merge suffixes) and a name at offset 0 included."""

from __future__ import annotations

import random

import pytest

from shimgen.binary.symbols import Names
from shimgen.check.policy import names_starting_any

PREFIXES = ("p_", "p_p_", "aoti_torch_", "cblas_", "sdot", "dgemm", "_ZN3re2", "x")


def _oracle(names: set[str], prefix: str) -> list[str]:
    return sorted(n for n in names if n.startswith(prefix))


def _random_table(seed: int, filler: int) -> tuple[bytes, list[int], set[str]]:
    """A string table whose wanted names start entries, sit inside longer entries (suffix-merged)
    or at offset 0, beside names that must not be found (the prefixes inside unwanted names)."""
    rng = random.Random(seed)
    stems = ["aoti_torch_empty", "p_aoti_torch_empty", "p_p_aoti_torch_x", "cblas_sdot", "sdot_", "dgemm_",
             "_ZN3re25hooks7contextE", "xdgemm", "zp_aoti", "helper", "use_p_helper", "caf\u00e9_p_"]
    table = b""
    offsets: list[int] = []
    names: set[str] = set()
    if seed % 2:  # a name at offset 0 (no NUL before it)
        table = b"p_first\0"
        offsets.append(0)
        names.add("p_first")
    else:
        table = b"\0"
    for _ in range(60):
        stem = rng.choice(stems) + str(rng.randrange(5))
        start = len(table)
        table += stem.encode() + b"\0"
        if rng.random() < 0.6:
            offsets.append(start)
            names.add(stem)
        cut = rng.randrange(1, len(stem))  # a tail of this entry, as a merged suffix
        if rng.random() < 0.5:
            tail_offset = start + len(stem[:cut].encode())
            tail = table[tail_offset:table.index(b"\0", tail_offset)].decode("utf-8", "backslashreplace")
            offsets.append(tail_offset)
            names.add(tail)
    return table + b"y" * filler + b"\0", offsets, names


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("filler", [0, 1 << 16])  # few names in a small or a large table
def test_every_path_agrees_with_startswith(seed, filler):
    table, offsets, names = _random_table(seed, filler)
    for asked in (PREFIXES[:2], PREFIXES[:3], PREFIXES):  # 2 and 3: a startswith each; 8: one alternation
        found = Names.from_table(table, offsets).starting_with_any(asked)
        assert found == {p: _oracle(names, p) for p in asked}, (seed, filler, asked)
        materialised = Names(names).starting_with_any(asked)
        assert materialised == found
    assert names_starting_any(frozenset(names), PREFIXES) == {p: _oracle(names, p) for p in PREFIXES}


def test_merged_tail_is_found():
    """'aoti_torch_x' stored inside 'p_aoti_torch_x' (no NUL before it) is still a name that starts
    with aoti_torch_: a search for entries starting after a NUL alone would miss it."""
    table = b"\0p_aoti_torch_x\0" + b"z" * 64 + b"\0"
    names = Names.from_table(table, [1, 3])
    assert names.starting_with_any(("aoti_torch_", "p_")) == {"aoti_torch_": ["aoti_torch_x"],
                                                              "p_": ["p_aoti_torch_x"]}


def test_answers_are_remembered_and_narrowed():
    table = b"\0p_a\0p_p_b\0q\0"
    names = Names.from_table(table, [1, 5, 11])
    assert names.starting_with("p_") == ["p_a", "p_p_b"]
    names._text = b""  # any further search of the text would now find nothing
    assert names.starting_with("p_p_") == ["p_p_b"]  # narrowed from the answer for p_
    assert names.starting_with("p_") == ["p_a", "p_p_b"]
    assert not names.materialized
