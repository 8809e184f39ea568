"""Bundled-library families (policy as data, libraries.json beside this module): which exported
names prove that a linked binary carries, and exports, its own copy of a well-known library.

Read by rule SG010 (``bundled_libraries``) and by ``shimgen repair``'s plan: one file, so what the
rule reports is what repair addresses. Same shape and checks as runtimes.json (SG009).

``anchors`` are public functions only the library itself defines; a family is found when at least
``min_anchors`` of them are exported (one name such as ``crc32`` may be any project's own).
``sonames`` are the library's own file names and SONAMEs, auditwheel's grafted
``libpng16-<hash>.so.16`` included: such a binary *is* the library and must export it.
"""

from __future__ import annotations

import os.path
from functools import lru_cache

from shimgen.binary.symbols import Binary
from shimgen.check.policy import names_starting_any
from shimgen.check.runtimes import Family, parse_families, read_json
from shimgen.errors import InputError
from shimgen.record import record

SCHEMA = "shimgen-libraries/1"
DATA = os.path.join(os.path.dirname(__file__), "libraries.json")  # a str: no pathlib on the check path
MIN_ANCHORS = 2


@record
class Bundled:
    """One family a binary exports without being that library."""

    family: Family
    anchors: tuple[str, ...]
    """The family's anchors it exports, in the data file's order."""
    count: int
    """How many of its exports carry one of the family's member prefixes."""


def parse_libraries(data: object, where: str) -> tuple[tuple[Family, ...], int]:
    """(families, min_anchors) from decoded JSON, checked like runtimes.json, plus: min_anchors a
    positive int no larger than any family's anchor count (else a family could never be found)."""
    families = parse_families(data, where, schema=SCHEMA)
    assert isinstance(data, dict)  # parse_families checked it
    need = data.get("min_anchors", MIN_ANCHORS)
    if not isinstance(need, int) or isinstance(need, bool) or need < 1:
        raise InputError(f"{where}: min_anchors must be a positive integer")
    short = [f.name for f in families if len(f.anchors) < need]
    if short:
        raise InputError(f"{where}: family {short[0]!r} has fewer anchors than min_anchors ({need})")
    return families, need


@lru_cache(maxsize=1)
def _loaded() -> tuple[tuple[Family, ...], int]:
    return parse_libraries(read_json(DATA), DATA)


def families() -> tuple[Family, ...]:
    return _loaded()[0]


def family_named(name: str) -> Family | None:
    return next((f for f in families() if f.name == name), None)


@lru_cache(maxsize=1)
def anchors() -> frozenset[str]:
    """Every family's anchors, one set: looked up in one pass over a binary's exports."""
    return frozenset(a for family in families() for a in family.anchors)


def file_name(binary: Binary) -> str:
    """The binary's own file name: the last component of its zip member, else of its path."""
    inner = (binary.member or "").rsplit(":", 1)[-1]
    return os.path.basename(inner or binary.path)


def is_the_library(family: Family, binary: Binary) -> bool:
    """The binary is that library: by SONAME, or by file name (a library without a SONAME, or
    auditwheel's renamed copy whose SONAME it rewrote to the same hashed name)."""
    return family.is_the_runtime(binary.soname) or family.is_the_runtime(file_name(binary))


def bundled_in(binary: Binary) -> list[Bundled]:
    """The families a linked binary exports while not being that library."""
    if not binary.linked or not binary.exports:
        return []
    present = binary.exports.having(anchors())
    if not present:
        return []
    need = _loaded()[1]
    found = []
    for family in families():
        hits = tuple(a for a in family.anchors if a in present)
        if len(hits) < need or is_the_library(family, binary):
            continue
        count = len({n for found in names_starting_any(binary.exports, family.members).values() for n in found})
        found.append(Bundled(family, hits, count))
    return found
