"""Plain values read from binaries: what a symbol table says, and nothing the rules decide.

Export and import are decided by the readers from binding, visibility and section index (never
from LIEF's ``exported``/``imported`` flags, which miss GNU_UNIQUE, NOTYPE and TLS symbols).
Names are kept as the C source spells them: Mach-O's leading underscore is already stripped.

``Binary`` keeps names in frozensets rather than one object per symbol: libtorch_cpu.so has 74k
exports, and building 74k objects costs more than the whole time budget of ``check-symbols``.
Per-symbol detail (``Symbol``) is only read when asked for (``shimgen symbols``).
"""

from __future__ import annotations

from dataclasses import dataclass

# Binary.kind values.
SHARED = "shared"  # shared library / DLL / dylib
EXECUTABLE = "executable"
OBJECT = "object"  # relocatable object, standalone or an archive member
LINKED_KINDS = (SHARED, EXECUTABLE)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Binary:
    path: str
    """The file named on the command line (or found under a directory given there)."""
    member: str | None
    """Inside ``path``: an archive member, a zip member, a fat slice ('arm64'), or a chain of them."""
    format: str  # ELF, Mach-O, PE
    kind: str  # shared, executable, object
    exports: frozenset[str]
    """Defined symbols visible to other modules. Sets, not sorted tuples: sorting 74k names costs
    more than reading them; whatever is shown to a user is sorted where it is rendered."""
    imports: frozenset[str]
    """Undefined symbols this binary needs from others, and does not itself export."""
    tls: frozenset[str] = frozenset()
    """The exports that are thread-local variables."""
    hidden: tuple[str, ...] = ()
    """Names of interest that a static symbol table shows defined but hidden or local (sorted).
    Only looked up when asked for (see ``load``'s ``hidden_of``); empty otherwise."""
    has_static_table: bool = False
    """Whether a static symbol table was present (so an empty ``hidden`` means something)."""
    symbols: tuple[Symbol, ...] = ()
    """Per-symbol detail; filled only when the reader was asked for it."""

    @property
    def display(self) -> str:
        return f"{self.path}({self.member})" if self.member else self.path

    @property
    def linked(self) -> bool:
        return self.kind in LINKED_KINDS
