"""C++ demangling for display, through the C++ runtime's own ``__cxa_demangle``.

LIEF 1.0.0's ``lief.demangle`` needs LIEF's extended build (it returns None here), and running
``c++filt`` per name is slow. libstdc++ (or libc++) is already on any machine that builds C++;
when it is not, names are shown mangled. Only names starting with ``_Z`` are looked at, so C
names never pay for this.
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_demangler: Any = None  # None: not looked up yet; False: unavailable; else (ctypes, function, free)


def _load():
    global _demangler
    if _demangler is None:
        _demangler = False
        try:
            import ctypes

            for library in ("libstdc++.so.6", "libc++.so.1", "libc++.1.dylib", "libstdc++.6.dylib"):
                try:
                    runtime = ctypes.CDLL(library)
                    break
                except OSError:
                    continue
            else:
                return _demangler
            function = runtime.__cxa_demangle
            function.restype = ctypes.c_void_p
            function.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
            libc = ctypes.CDLL(None)
            libc.free.argtypes = [ctypes.c_void_p]
            _demangler = (ctypes, function, libc.free)
        except (OSError, AttributeError):
            _demangler = False
    return _demangler


@lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """The demangled form of ``name``, or ``name`` itself when it is not a C++ mangled name."""
    if not name.startswith("_Z"):
        return name
    loaded = _load()
    if not loaded:
        return name
    ctypes, function, free = loaded
    status = ctypes.c_int()
    pointer = function(name.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
    if status.value != 0 or not pointer:
        return name
    try:
        return ctypes.string_at(pointer).decode("utf-8", "backslashreplace")
    finally:
        free(pointer)
