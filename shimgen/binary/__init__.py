"""Reading binaries (never loading or running them): frozen Binary/Symbol values.

``load_paths`` is the entry point; ``elf`` is the fast ELF reader, ``lief_reader`` covers every
format through LIEF (imported only when needed: it costs 0.3 s). The names below are imported on
first use, so that a submodule (``magic``, ``zipread``) can be imported without the readers.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from shimgen.binary.load import load_paths
    from shimgen.binary.symbols import Binary, Symbol

__all__ = ["Binary", "Symbol", "load_paths"]


def __getattr__(name: str) -> object:
    if name == "load_paths":
        from shimgen.binary.load import load_paths

        return load_paths
    if name in ("Binary", "Symbol"):
        from shimgen.binary import symbols

        return getattr(symbols, name)
    raise AttributeError(f"module 'shimgen.binary' has no attribute {name!r}")
