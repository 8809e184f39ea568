"""The ELF reader's bound check on st_name (every name offset inside the string table) decides from
byte columns where it can; it must answer exactly as the maximum over every entry does, for both
ELF classes, at the byte boundaries it splits on, and for tables of every size."""

from __future__ import annotations

import random
import struct

import pytest

from shimgen.binary.elf import _LAYOUTS, _max_name, _names_below


def _table(layout, names: list[int]) -> bytes:
    if layout.is64:
        return b"".join(layout.sym.pack(n, 0x12, 0, 1, 0, 0) for n in names)
    return b"".join(layout.sym.pack(n, 0, 0, 0x12, 0, 1) for n in names)


@pytest.mark.parametrize("is64", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_column_check_agrees_with_the_maximum(is64, seed):
    rng = random.Random(seed)
    layout = _LAYOUTS[(2 if is64 else 1, 1)]
    for limit in (1, 255, 0x10000, 0x10001, 0x4EDF81, 0xFFFFFF, 0x1000000, 0x12345678):
        for _ in range(20):
            count = rng.choice((1, 5, 40, 400))
            spread = rng.choice((limit, 0x10000, 0x100, 2))
            names = [rng.randrange(max(0, limit - spread), limit) for _ in range(count)]
            if rng.random() < 0.5:  # one offset at or past the limit, somewhere
                names[rng.randrange(count)] = limit + rng.choice((0, 1, 0xFF, 0x100, 0x10000, 0x1000000)) \
                    if limit + 0x1000000 < 1 << 32 else limit
            raw = _table(layout, names)
            assert _names_below(raw, layout, limit) == (_max_name(raw, layout) < limit), (limit, names)


def test_foreign_byte_order_and_an_empty_table():
    layout = _LAYOUTS[(2, 2)]  # big-endian 64-bit
    raw = b"".join(struct.pack(">IBBHQQ", n, 0x12, 0, 1, 0, 0) for n in (3, 0x4E0001))
    assert _names_below(raw, layout, 0x4E0002) and not _names_below(raw, layout, 0x4E0001)
    assert _names_below(b"", _LAYOUTS[(2, 1)], 1)
