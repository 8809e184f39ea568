"""Plain values read from binaries: what a symbol table says, and nothing the rules decide.

Export and import are decided by the readers from binding, visibility and section index (never
from LIEF's ``exported``/``imported`` flags, which miss GNU_UNIQUE, NOTYPE and TLS symbols).
Names are kept as the C source spells them: Mach-O's leading underscore is already stripped.

``Binary`` keeps names in sets (``Names``) rather than one object per symbol: libtorch_cpu.so has
74k exports, and building 74k objects costs more than the whole time budget of ``check-symbols``.
Per-symbol detail (``Symbol``) is only read when asked for (``shimgen symbols``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Set
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import add, itemgetter

from shimgen.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Binary.kind values.
SHARED = "shared"  # shared library / DLL / dylib
EXECUTABLE = "executable"
OBJECT = "object"  # relocatable object, standalone or an archive member
LINKED_KINDS = (SHARED, EXECUTABLE)

# Symbols every ELF/Mach-O linker defines on its own; never a foreign export of the user's making.
LINKER_SYMBOLS = frozenset({
    "_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_",
    "_PROCEDURE_LINKAGE_TABLE_", "__end__", "__data_start", "data_start", "_IO_stdin_used",
    "_mh_dylib_header", "_mh_execute_header", "_mh_bundle_header", "dyld_stub_binder",
})


class UnusableIndex(Exception):
    """A file's symbol hash table turned out inconsistent while being asked; search the text."""


NameIndex = Callable[[str], Iterable[int]]
"""The string-table offsets of the defined symbols named so, from a file's hash table."""


class Names(Set):
    """An immutable set of symbol names.

    Either a plain frozenset, or (from the fast ELF reader) a string table plus the offsets of the
    names in it, turned into strings only when something needs all of them. The rules mostly ask
    ``starting_with(literal)``, which the table answers by searching its text: checking
    libtorch_cpu.so's 74k exports then never builds 74k strings (that alone takes 40 ms).
    """

    __slots__ = ("_expected", "_first", "_found", "_had", "_index", "_names", "_offsets", "_ordered", "_text")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._names: frozenset[str] | None = frozenset(names)
        self._text: bytes | None = None
        self._offsets: frozenset[int] = frozenset()
        self._index: NameIndex | None = None
        self._found: dict[str, list[str]] | None = None
        self._first: tuple[tuple[int, ...], bytes] | None = None
        self._ordered: tuple[int, ...] | None = None
        self._expected: tuple[str, ...] = ()
        self._had: dict[frozenset[str], set[str]] = {}

    @classmethod
    def from_table(cls, strings: bytes, offsets: Iterable[int], index: NameIndex | None = None, *,
                   drop_empty: bool = False) -> Names:
        """``strings``: a string table, in which the caller has checked that every offset in
        ``offsets`` starts a NUL-terminated name. ``index``: the file's own hash table of its
        defined symbols (ELF .gnu.hash), which ``having`` asks before searching the text.
        ``drop_empty``: offset 0 is the empty name (ELF), not a name. A tuple of offsets (table
        order; repeats are harmless) is also kept for the first-byte gather of
        ``starting_with_any``, which otherwise makes a tuple of the set."""
        names = cls.__new__(cls)
        unique = frozenset(offsets)
        ordered = offsets if isinstance(offsets, tuple) else None
        if drop_empty and 0 in unique:
            unique -= {0}
            ordered = tuple(filter(None, ordered)) if ordered is not None else None
        names._names, names._text, names._offsets, names._index = None, strings, unique, index
        names._found, names._first, names._ordered, names._expected, names._had = None, None, ordered, (), {}
        return names

    def expect(self, literals: Iterable[str]) -> None:
        """Announce prefixes ``starting_with_any`` will be asked about later: the first search of
        the string table then answers them too, in the same pass (each pass over libtorch_cpu.so's
        5 MB table costs 2-6 ms; the rules ask it four times). Only a hint: a literal announced
        and never asked costs one more alternative, one asked and never announced a pass."""
        self._expected = tuple(dict.fromkeys((*self._expected, *(literal for literal in literals if literal))))

    def _all(self) -> frozenset[str]:
        if self._names is None and len(self._offsets) * 512 < len(self._text or b""):
            # Few names in a big table (the imports of a library whose .dynstr holds 436k exports):
            # cut each one out rather than decode and split the whole table (82 MB, 200 MB of strings).
            strings = self._text or b""
            self._names = frozenset(strings[o:strings.index(b"\0", o)].decode("utf-8", "backslashreplace")
                                    for o in self._offsets)
        if self._names is None:
            text = (self._text or b"").decode("latin-1")  # latin-1: byte offset = character offset
            # One C-speed split of the table, then dict lookups; offsets into the middle of a
            # string (linkers merge common suffixes) fall back to a search.
            parts = text.split("\0")
            by_offset = dict(zip(accumulate(map(add, map(len, parts), repeat(1)), initial=0), parts))
            offsets = list(self._offsets)
            looked_up = [by_offset.get(o) for o in offsets]
            found: list[str] = [n if n is not None else text[o:text.index("\0", o)] for n, o in zip(looked_up, offsets)]
            self._names = frozenset(found if text.isascii() else map(_from_latin1, found))
        return self._names

    def starting_with(self, literal: str) -> list[str]:
        """The names that begin with ``literal``, sorted."""
        return self.starting_with_any((literal,))[literal]

    def starting_with_any(self, literals: Iterable[str]) -> dict[str, list[str]]:
        """{literal: the names that begin with it, sorted} for each of ``literals``, found in one
        pass over the names (or the string table) for all of them, and remembered: the rules ask
        one table about the prefix, its double, the shim patterns and every family's member
        prefixes (24 questions for libtorch_cpu.so, each a search of its 5 MB table before)."""
        wanted = dict.fromkeys(literals)
        known = self._found
        if known is None:
            known = self._found = {}
        missing = []
        for literal in wanted:
            if literal in known:
                continue
            # A name starting with "p_p_" starts with "p_": narrow an answer already found.
            wider = next((w for w in known if literal.startswith(w)), None) if literal else None
            if wider is not None:
                known[literal] = [n for n in known[wider] if n.startswith(literal)]
            else:
                missing.append(literal)
        if missing:
            found = self._search(missing)
            for literal, names in found.items():
                known[literal] = sorted(names)
        return {literal: known[literal] for literal in wanted}

    def _search(self, literals: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {literal: set() for literal in literals}
        starts = tuple(literals)

        def add(name: str) -> None:
            for literal in literals:
                if name.startswith(literal):
                    found[literal].add(name)

        if self._names is not None or "" in literals:
            for name in self._all():
                if name.startswith(starts):
                    add(name)
            return found
        strings = self._text or b""
        if len(strings) >= EXPECT_FROM:
            # The literals announced (``expect``) and not yet answered are searched in the same pass
            # (on a big table only: a small one is searched quickly, and its pattern compiled once
            # per set of literals would cost more).
            literals = [*literals, *(e for e in self._expected if e not in found and e not in (self._found or ()))]
            found.update((literal, set()) for literal in literals if literal not in found)
        # The literals each literal's match also satisfies (its own prefixes among them): a hit is
        # reported with the longest literal it starts with, so it is added without testing all.
        covers = {literal: [other for other in literals if literal.startswith(other)] for literal in literals}
        for at, literal in self._starts(frozenset(literals)):
            name = strings[at:strings.index(b"\0", at)].decode("utf-8", "backslashreplace")
            for other in covers[literal]:
                found[other].add(name)
        return found

    def _starts(self, literals: frozenset[str]) -> Iterator[tuple[int, str]]:
        """(offset, the longest of ``literals`` it starts with) for each name that starts with one.

        The names are the offsets themselves, not the table's entries, so a name a linker stored as
        the tail of a longer one (``aoti_torch_x`` inside ``p_aoti_torch_x``) is found like any
        other. One gather of every name's first byte (at C speed), then a match only where that
        byte starts a literal: on libtorch_cpu.so ~1k of 74k names, where a search of the 5 MB
        table visited all of its 75k entries and then gathered the byte before every name again
        for the tails."""
        if self._first is None:
            self._first = _first_bytes(self._text or b"", self._ordered or self._offsets)
        offsets, first = self._first
        strings = self._text or b""
        # A literal holding a NUL starts no name.
        encoded = {literal.encode("utf-8"): literal for literal in literals if "\0" not in literal}
        if not encoded:
            return
        starts = first.translate(_starts_any(frozenset(encoded)))
        # Each candidate is tested against the literals that begin with its first byte, longest
        # first, by startswith (no pattern compiled, no ``re`` imported: on libtorch_cpu.so ~1.1k
        # candidates, 19 literals).
        by_first = _by_first_byte(frozenset(encoded))
        for at, byte in zip(compress(offsets, starts), compress(first, starts)):
            needles = by_first[byte]
            if strings.startswith(needles, at):
                yield at, encoded[next(n for n in needles if strings.startswith(n, at))]

    def having(self, wanted: Iterable[str]) -> set[str]:
        """Which of ``wanted`` are among the names, by one search for all of them as whole entries
        of the string table (never building every name)."""
        wanted = frozenset(wanted)
        had = self._had.get(wanted)
        if had is None:
            had = self._had[wanted] = self._having(wanted)
        return set(had)

    def _having(self, wanted: frozenset[str]) -> set[str]:
        if self._names is not None or not wanted:
            return {n for n in wanted if n in self._all()}
        strings, offsets = self._text or b"", self._offsets
        if self._index is not None:
            # The hash table the dynamic linker binds through: a few probes per name instead of
            # reading the whole table (a name it does not list is one nobody can bind to).
            try:
                return {n for n in wanted if any(o in offsets for o in self._index(n))}
            except UnusableIndex:
                pass  # a corrupt hash table: search the text instead
        # One pass of a precompiled alternation over the table, not a search per name: SG009 asks
        # for 28 anchors, and 28 searches of libtorch_cpu.so's 5 MB table cost 2 ms each.
        return {m.group(1).decode() for m in _whole_names(frozenset(wanted)).finditer(strings) if m.start() + 1 in offsets}

    def iter_lazily(self) -> Iterator[str]:
        """Every name (a name a table holds twice may come twice), decoded one at a time and not
        kept: one pass over 435k exports without building them all as a set (``shimgen repair``
        on libtensorflow_cc.so.2). A materialised set is iterated as it is."""
        if self._names is not None:
            yield from self._names
            return
        strings = self._text or b""
        for offset in self._offsets:
            yield strings[offset:strings.index(b"\0", offset)].decode("utf-8", "backslashreplace")

    @property
    def materialized(self) -> bool:
        """Whether every name has been built as a string (tests use it to keep the fast path fast)."""
        return self._names is not None

    def count(self) -> int:
        """How many names, cheaply: for a string table, the distinct offsets (equal to the distinct
        names for every table a linker writes, since linkers store each string once)."""
        return len(self._offsets) if self._names is None else len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:  # without materialising: `if binary.exports` is common
        return bool(self._offsets) if self._names is None else bool(self._names)

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"Names({sorted(self._all())!r})"


EMPTY = Names()

EXPECT_FROM = 1 << 20
"""String tables from this size on answer announced prefixes (``Names.expect``) in their first pass."""


@lru_cache(maxsize=32)
def _whole_names(names: frozenset[str]) -> re.Pattern[bytes]:
    """Any of ``names`` as a whole string-table entry: NUL before, NUL after (linkers merge
    suffixes, so a name may also occur inside a longer one). The NUL after is a lookahead, so
    adjacent entries both match; the longest alternatives come first. Only for a table without a
    usable .gnu.hash, so ``re`` is imported here."""
    import re

    alternatives = sorted((re.escape(n.encode()) for n in names), key=lambda n: (-len(n), n))
    return re.compile(b"\0(" + b"|".join(alternatives) + b")(?=\0)")


def _first_bytes(strings: bytes, offsets: tuple[int, ...] | frozenset[int]) -> tuple[tuple[int, ...], bytes]:
    """The offsets, and the first byte of the name at each (in the same order)."""
    ordered = offsets if isinstance(offsets, tuple) else tuple(offsets)
    if len(ordered) == 1:  # itemgetter of one index returns the item, not a tuple
        return ordered, bytes((strings[ordered[0]],))
    return ordered, bytes(itemgetter(*ordered)(strings)) if ordered else b""


@lru_cache(maxsize=32)
def _starts_any(literals: frozenset[bytes]) -> bytes:
    """A bytes.translate table: 1 for a byte some literal starts with, else 0."""
    first = {literal[0] for literal in literals}
    return bytes(1 if value in first else 0 for value in range(256))


@lru_cache(maxsize=32)
def _by_first_byte(literals: frozenset[bytes]) -> dict[int, tuple[bytes, ...]]:
    """{first byte: the literals starting with it, longest first}: the first that a name starts
    with is the longest literal it starts with."""
    grouped: dict[int, list[bytes]] = {}
    for literal in sorted(literals, key=lambda n: (-len(n), n)):
        grouped.setdefault(literal[0], []).append(literal)
    return {byte: tuple(group) for byte, group in grouped.items()}


def _from_latin1(name: str) -> str:
    """Names are bytes; tables are decoded as latin-1 for offsets, shown as UTF-8."""
    return name if name.isascii() else name.encode("latin-1").decode("utf-8", "backslashreplace")


@record
class Symbol:
    """One symbol, for display (``shimgen symbols``) and for tests."""

    name: str
    defined: bool
    binding: str  # global, weak, local, unique
    visibility: str  # default, protected, hidden, internal
    type: str  # func, object, tls, notype, other
    is_export: bool
    is_import: bool

    @property
    def hidden(self) -> bool:
        """Defined here but not visible outside: the linker kept it, visibility hid it."""
        return self.defined and not self.is_export


@record
class Binary:
    path: str
    """The file named on the command line (or found under a directory given there)."""
    member: str | None
    """Inside ``path``: an archive member, a zip member, a fat slice ('arm64'), or a chain of them."""
    format: str  # ELF, Mach-O, PE, COFF (an object file: .obj, or a .lib member)
    kind: str  # shared, executable, object
    exports: Names
    """Defined symbols visible to other modules. A set, not a sorted tuple: sorting 74k names
    costs more than reading them; whatever is shown to a user is sorted where it is rendered."""
    imports: Names
    """Undefined symbols this binary needs from others."""
    tls: Names = EMPTY
    """The exports that are thread-local variables."""
    hidden: tuple[str, ...] = ()
    """Names of interest that a static symbol table shows defined but hidden or local (sorted).
    Only looked up when asked for (see ``load``'s ``hidden_of``); empty otherwise."""
    has_static_table: bool = False
    """Whether a static symbol table was present (so an empty ``hidden`` means something)."""
    symbols: tuple[Symbol, ...] = ()
    """Per-symbol detail; filled only when the reader was asked for it."""
    slice_of: str | None = None
    """For one architecture of a fat Mach-O file: that file (its display name). Slices are
    alternatives, never loaded together, so set rules count them as one binary."""
    soname: str | None = None
    """ELF DT_SONAME: the name the dynamic linker knows this library by."""
    needed: tuple[str, ...] = ()
    """ELF DT_NEEDED entries, in order."""
    symbolic: bool = False
    """Linked -Bsymbolic (DT_SYMBOLIC, or DF_SYMBOLIC in DT_FLAGS): it binds references to its own
    definitions first, so its exports cannot be interposed from inside it."""
    tls_unique: frozenset[str] = frozenset()
    """The thread-local exports bound STB_GNU_UNIQUE: glibc keeps one copy process-wide."""
    tls_protected: frozenset[str] = frozenset()
    """The thread-local exports of STV_PROTECTED visibility: the library uses its own copy."""
    tls_hidden: frozenset[str] = frozenset()
    """Thread-locals the static symbol table shows defined but hidden (made local by the linker);
    read only when asked for (``load``'s ``local_tls``), empty otherwise."""

    def __post_init__(self) -> None:
        # Accept any iterable of names (tests write frozensets); store Names.
        for field in ("exports", "imports", "tls"):
            value = getattr(self, field)
            if not isinstance(value, Names):
                object.__setattr__(self, field, Names(value))

    @property
    def display(self) -> str:
        return f"{self.path}({self.member})" if self.member else self.path

    @property
    def identity(self) -> str:
        """What set rules count as one binary: a fat file's slices share one identity."""
        return self.slice_of or self.display

    @property
    def linked(self) -> bool:
        return self.kind in LINKED_KINDS
