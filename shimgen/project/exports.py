"""The config's ``exports``: exact names, globs, and C++ patterns, and how each linker spells them.

A library's non-shim API is often C++ (ExecuTorch's backend and tests call
``executorch::backends::cuda::CudaAllocator::instance()`` in the shim library). Listing mangled
names by hand is fragile, so ``exports`` takes three kinds of item:

- an exact symbol name: a C identifier or a mangled name (``_ZN...``);
- a glob over symbol names (``acme_api_*``);
- a C++ pattern over demangled names (it holds ``::``, ``(`` or ``<``): exact
  (``ns::Class::instance()``) or a glob (``ns::*``).

ELF version scripts take all three (C++ patterns in an ``extern "C++"`` block). Mach-O
exported-symbols lists take names and globs over mangled names: a C++ namespace glob (``a::b::*``)
becomes the globs of its mangled prefix; any other C++ pattern cannot be written there. A Windows
.def file takes exact names only. What a format cannot hold is written into it as a comment, and
reported by ``unsupported``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from shimgen.project.names import is_identifier

GLOB_CHARS = frozenset("*?[")
# What an item may hold: it is written into linker files, so nothing that ends or quotes an entry
# there (';', '"', '{', '}', '#', newlines) can pass.
_NAME = re.compile(r"[A-Za-z0-9_.$*?\[\]!-]+\Z")
_CXX = re.compile(r"[A-Za-z0-9_:*?\[\]()<>,&~ .]+\Z")
_NAMESPACE_GLOB = re.compile(r"((?:[A-Za-z_][A-Za-z0-9_]*::)+)\*\Z")


@dataclass(frozen=True)
class ExportItem:
    text: str
    kind: str
    """'name' (exact symbol), 'glob' (over symbol names) or 'cxx' (over demangled names)."""

    @property
    def is_glob(self) -> bool:
        return bool(GLOB_CHARS & set(self.text))


def is_cxx(text: str) -> bool:
    return "::" in text or "(" in text or "<" in text


def classify(text: str) -> ExportItem:
    if is_cxx(text):
        return ExportItem(text, "cxx")
    return ExportItem(text, "glob" if GLOB_CHARS & set(text) else "name")


def problems(items: Iterable[str]) -> Iterator[str]:
    """One message per item that is none of the three kinds (config validation)."""
    for text in items:
        if not text:
            continue
        item = classify(text)
        if item.kind == "cxx":
            if not _CXX.match(text) or text.strip() != text:
                yield (f"'{text}' is not a C++ pattern shimgen can write into a version script "
                       "(letters, digits, _ : * ? [ ] ( ) < > , & ~ . and single spaces)")
            elif item.is_glob and " " in text:
                yield (f"'{text}': a C++ glob cannot hold a space (version scripts match globs unquoted); "
                       "write the exact signature, or a glob without spaces ('ns::f*')")
        elif not _NAME.match(text):
            yield f"'{text}' is not a symbol name or glob (letters, digits, _ . $ and * ? [ ])"
        elif item.kind == "name" and not is_identifier(text) and not text.startswith("_Z"):
            yield f"'{text}' is not a C identifier or a mangled C++ name (_Z...)"


@dataclass(frozen=True)
class LinkerLists:
    """Every exported item as each linker format spells it (names without a Mach-O underscore)."""

    names: tuple[str, ...]
    """Exact names and globs over symbol names: every format's plain entries (.def: exact only)."""
    cxx_exact: tuple[str, ...]
    cxx_globs: tuple[str, ...]
    macho_cxx: tuple[str, ...]
    """Mangled-name globs for the C++ namespace globs (a Mach-O list has no demangled matching)."""
    macho_unsupported: tuple[str, ...]
    def_names: tuple[str, ...]
    def_unsupported: tuple[str, ...]


def linker_lists(names: Iterable[str]) -> LinkerLists:
    items = [classify(n) for n in sorted(set(names))]
    plain = tuple(i.text for i in items if i.kind != "cxx")
    cxx = [i for i in items if i.kind == "cxx"]
    macho: list[str] = []
    macho_unsupported: list[str] = []
    for item in cxx:
        mangled = namespace_globs(item.text)
        if mangled:
            macho.extend(mangled)
        else:
            macho_unsupported.append(item.text)
    return LinkerLists(
        names=plain,
        cxx_exact=tuple(i.text for i in cxx if not i.is_glob),
        cxx_globs=tuple(i.text for i in cxx if i.is_glob),
        macho_cxx=tuple(macho),
        macho_unsupported=tuple(macho_unsupported),
        def_names=tuple(i.text for i in items if i.kind == "name"),
        def_unsupported=tuple(i.text for i in items if i.kind != "name"),
    )


def namespace_globs(pattern: str) -> list[str]:
    """For ``a::b::*``: the mangled-name globs of everything in namespace ``a::b`` (Itanium ABI:
    ``_ZN1a1b...`` and, for const member functions, ``_ZNK1a1b...``); [] for any other pattern."""
    match = _NAMESPACE_GLOB.match(pattern)
    if not match:
        return []
    nested = "".join(f"{len(part)}{part}" for part in match.group(1).split("::") if part)
    return [f"_ZN{nested}*", f"_ZNK{nested}*"]


def matches(item: str, name: str, demangled: str | None) -> bool:
    """Whether export ``item`` selects the symbol ``name`` (``demangled``: its C++ spelling)."""
    import fnmatch

    kind = classify(item).kind
    if kind == "cxx":
        return demangled is not None and (fnmatch.fnmatchcase(demangled, item) if classify(item).is_glob
                                          else demangled == item)
    return fnmatch.fnmatchcase(name, item) if kind == "glob" else name == item
