"""Runtime families (policy as data, runtimes.json beside this module): which exported names
prove that a linked binary carries its own copy of a runtime other libraries also provide.

``anchors`` are functions only the runtime itself defines (``__cxa_throw``; not ``operator new``,
which allocators such as jemalloc replace on purpose, and no data object such as ``std::cout``,
which every non-PIE executable using it defines through a copy relocation); ``members`` are the prefixes of the
family's names, counted and shown; ``sonames`` are the runtime's own libraries, never flagged.
"""

from __future__ import annotations

import os.path
from functools import lru_cache

from shimgen.errors import InputError
from shimgen.project.matcher import glob_match
from shimgen.record import record

SCHEMA = "shimgen-runtimes/1"
DATA = os.path.join(os.path.dirname(__file__), "runtimes.json")  # a str: no pathlib on the check path


@record
class Family:
    name: str
    sonames: tuple[str, ...]
    anchors: tuple[str, ...]
    members: tuple[str, ...]
    hint: str

    def is_the_runtime(self, soname: str | None) -> bool:
        return soname is not None and any(glob_match(soname, glob) for glob in self.sonames)


def parse_families(data: object, where: str, schema: str = SCHEMA) -> tuple[Family, ...]:
    """Families from decoded JSON, checked: every field present and typed, names unique, every
    anchor covered by a member prefix (so the count includes it), no empty string anywhere.
    ``schema``: the file's kind (the bundled-library families of libraries.json share this shape)."""
    if not isinstance(data, dict) or data.get("schema") != schema or not isinstance(data.get("families"), list):
        raise InputError(f"{where}: not a family file (expected schema '{schema}' and 'families')")
    families, seen = [], set()
    for index, item in enumerate(data["families"]):
        at = f"{where}: families[{index}]"
        if not isinstance(item, dict) or set(item) != {"name", "sonames", "anchors", "members", "hint"}:
            raise InputError(f"{at}: needs exactly name, sonames, anchors, members, hint")
        lists = {}
        for key in ("sonames", "anchors", "members"):
            value = item[key]
            if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
                raise InputError(f"{at}.{key}: a non-empty list of non-empty strings")
            if len(set(value)) != len(value):
                raise InputError(f"{at}.{key}: holds a duplicate")
            lists[key] = tuple(value)
        if not all(isinstance(item[k], str) and item[k] for k in ("name", "hint")):
            raise InputError(f"{at}: name and hint must be non-empty strings")
        if item["name"] in seen:
            raise InputError(f"{at}: family {item['name']!r} named twice")
        seen.add(item["name"])
        stray = [a for a in lists["anchors"] if not any(a.startswith(m) for m in lists["members"])]
        if stray:
            raise InputError(f"{at}.anchors: {stray[0]!r} matches none of the member prefixes")
        families.append(Family(item["name"], lists["sonames"], lists["anchors"], lists["members"], item["hint"]))
    if not families:
        raise InputError(f"{where}: no runtime family")
    return tuple(families)


@lru_cache(maxsize=1)
def families() -> tuple[Family, ...]:
    return parse_families(read_json(DATA), DATA)


@lru_cache(maxsize=1)
def anchors() -> frozenset[str]:
    """Every family's anchors, one set: SG009 looks all of them up in one pass over a table."""
    return frozenset(a for family in families() for a in family.anchors)


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class _Decoding:
    """What json's C scanner reads from a decoder: json.loads' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


def read_json(path: str) -> object:
    """``json.loads`` of a bundled data file, through the C scanner json.loads itself runs
    (``_json.make_scanner``), so that checking a binary imports neither json nor, through it, re
    (~30M instructions, a tenth of checking libtorch_cpu.so). Anything the scanner does not take
    whole, or an interpreter without ``_json``, goes to json.loads, which gives its own answer or
    error."""
    text = read_text(path)
    try:
        from _json import make_scanner

        start = len(text) - len(text.lstrip(" \t\n\r"))
        value, end = make_scanner(_Decoding())(text, start)  # type: ignore[arg-type]  # (typeshed: a JSONDecoder)
        if not text[end:].strip(" \t\n\r"):
            return value
    except Exception:  # json.loads below reports it in its own words
        pass
    import json

    return json.loads(text)
