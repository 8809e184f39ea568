"""Reading binaries (never loading or running them): frozen Binary/Symbol values.

``load_paths`` is the entry point; ``elf`` is the fast ELF reader, ``lief_reader`` covers every
format through LIEF (imported only when needed: it costs 0.3 s).
"""

from shimgen.binary.load import load_paths
from shimgen.binary.symbols import Binary, Symbol

__all__ = ["Binary", "Symbol", "load_paths"]
