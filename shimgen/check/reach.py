"""Whether one binary can observe another's copy of a library's state (rule SG007).

Two copies of a thread-local in one process are harmless while each copy is used only by its own
library's code: pyarrow's libarrow_flight keeps a wholly private re2 (hundreds of LOCAL re2
functions, no re2 name imported or exported) beside libarrow_compute's exported one, and no code
ever reaches both. They are a hazard when the binary that binds its copy locally also exchanges
names of the same namespace with the binary holding the other copy: tensorflow's
libtensorflow_cc.so.2 imports 235 riegeli functions from libtensorflow_framework.so.2, whose
code numbers threads with the framework's counter, while its own inlined riegeli code keeps a
LOCAL copy of that counter: one component, two numberings.

So the question asked here is: does ``binder`` import a name of the thread-local's namespace from
``other`` (which it NEEDs, directly or through another library of the set, and which exports that
name), or export one to ``other`` (which NEEDs ``binder`` and imports it)? An import binds only
inside the importer's own dependency tree (Python loads extension modules RTLD_LOCAL): two
extensions that both export absl and both import it from libtensorflow_framework never bind to
each other. A DT_NEEDED entry alone is not enough either (libarrow_flight NEEDs libarrow while
both keep private absl copies and no absl name crosses).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from shimgen.binary.symbols import Binary
from shimgen.record import record

# _Z, then what may stand before the first name of a nested entity: a TLS init/wrapper function
# (TH/TW), a guard variable (GV), a local entity (Z), nested-name (N), cv-qualifiers, internal
# linkage (L); then `St` (std::) or the first <source-name>: its length and text.
_FIRST_NAME = re.compile(r"_Z(?:T[HW]|GV|GR)?Z?N?[rVK]*L?(St|\d+)")


@lru_cache(maxsize=65536)
def namespace_of(name: str) -> str:
    """The outermost namespace (or class) of a mangled C++ name (``re2`` for
    ``_ZN3re25hooks7contextE``, ``absl`` for an ``absl::lts_2025...`` name); for a C name, the part
    before its first underscore (``xml`` for ``xml_state``), or the whole name when it has none
    or starts with one."""
    if name.startswith("_Z"):
        match = _FIRST_NAME.match(name)
        if match is None:
            return name
        if match.group(1) == "St":
            return "std"
        length = int(match.group(1))
        return name[match.end():match.end() + length] or name
    if name.startswith("_"):  # reserved for the implementation (__tls_guard): no family of names
        return name
    head = name.split("_", 1)[0]
    return head if head != name else name


_NAME_START = re.compile(r"_Z(?:T[HW]|GV|GR)?Z?N?[rVK]*")
_LENGTH = re.compile(r"\d+")


def internal_linkage(name: str) -> bool:
    """Whether a mangled name's nested name passes through an entity of internal linkage (a
    ``static`` one, ``L`` in the mangling, or an anonymous namespace): the language gives such an
    entity one copy per translation unit, so copies in two libraries are what the source asked
    for (``xla::thread_fuel``, a ``static inline`` header function's local)."""
    if name == "__tls_guard":  # g++'s guard of a translation unit's thread-locals
        return True
    if not name.startswith("_Z"):
        return False
    match = _NAME_START.match(name)
    at = match.end() if match else 2
    while at < len(name):
        internal = name[at] == "L"
        at += internal
        if name.startswith("St", at):
            at += 2
            continue
        length = _LENGTH.match(name, at)
        if length is None:
            return False
        start = length.end()
        if internal or name.startswith("_GLOBAL__N", start):
            return True
        at = start + int(length.group())
    return False


@record
class Crossing:
    """Names of one namespace passing between two binaries."""

    imported: int
    """Names of the namespace ``binder`` imports from ``other`` (which it depends on)."""
    exported: int
    """Names of the namespace ``binder`` exports to ``other`` (which depends on it)."""

    def __bool__(self) -> bool:
        return bool(self.imported or self.exported)


def file_name(binary: Binary) -> str:
    return (binary.member or binary.path).replace("\\", "/").rsplit("/", 1)[-1]


def dependencies(binaries: Sequence[Binary]) -> dict[str, frozenset[str]]:
    """Each binary's identity -> the identities of the binaries of the set it depends on through
    DT_NEEDED, directly or not (a NEEDED name is matched to a SONAME, else to a file name)."""
    by_name: dict[str, str] = {}
    for binary in binaries:
        by_name.setdefault(file_name(binary), binary.identity)
        if binary.soname:
            by_name[binary.soname] = binary.identity
    direct: dict[str, set[str]] = {}
    for binary in binaries:
        direct.setdefault(binary.identity, set()).update(by_name[n] for n in binary.needed if n in by_name)
    closure: dict[str, frozenset[str]] = {}
    for start in direct:
        seen, todo = set(), [start]
        while todo:
            for nxt in direct.get(todo.pop(), ()):
                if nxt not in seen and nxt != start:
                    seen.add(nxt)
                    todo.append(nxt)
        closure[start] = frozenset(seen)
    return closure


def _in_namespace(names, namespace: str) -> set[str]:
    return {n for n in names if namespace_of(n) == namespace}


def crossing(binder: Binary, other: Binary, namespace: str, depends: dict[str, frozenset[str]]) -> Crossing:
    """What of ``namespace`` passes between ``binder`` and ``other``, by their dynamic tables and
    the dependency closure ``depends`` (from ``dependencies``)."""
    imported: set[str] = set()
    exported: set[str] = set()
    if other.identity in depends.get(binder.identity, ()) and binder.imports:
        imported = other.exports.having(_in_namespace(binder.imports, namespace))
    if binder.identity in depends.get(other.identity, ()) and other.imports:
        exported = binder.exports.having(_in_namespace(other.imports, namespace))
    return Crossing(len(imported), len(exported))
