"""Is a file shimgen's runtime library, fit to load? Decided by reading it, never by loading it.

``shimgen run`` dlopens the runtime. A truncated library kills the process with SIGBUS when the
loader touches a page past the end of the file; an empty or garbage one fails with a message about
the file, not about what to do; a library built with AddressSanitizer or ThreadSanitizer aborts
unless its sanitizer runtime was loaded first. All of these are visible in the file: its ELF
header and segments (the reader bounds-checks every segment against the file size), the runtime's
identifying exports, and DT_NEEDED / imports of a sanitizer runtime.
"""

from __future__ import annotations

from pathlib import Path

from shimgen.binary.load import load_path
from shimgen.errors import InputError

# Exported by every build of shimgen/runtime/ (include/shimgen_runtime/model_loader.h, runtime.h).
IDENTIFYING_EXPORTS = ("shimgen_model_open", "shimgen_runtime_last_error")

# Sanitizers whose runtime must be first in the process: a library built with them cannot be
# dlopened into an ordinary Python. (UBSan alone loads anywhere.)
SANITIZER_LIBRARIES = ("libasan.", "libtsan.", "libhwasan.", "liblsan.")
SANITIZER_IMPORTS = ("__asan_init", "__tsan_init", "__hwasan_init")


def runtime_problem(path: Path) -> str | None:
    """None when ``path`` reads as a loadable shimgen runtime; else why not, one line naming it."""
    try:
        binaries = load_path(Path(path))
    except InputError as exc:
        return str(exc)
    if len(binaries) != 1 or binaries[0].kind != "shared":
        return f"{path}: not a shared library"
    binary = binaries[0]
    missing = [name for name in IDENTIFYING_EXPORTS if name not in binary.exports]
    if missing:
        return f"{path}: not shimgen's runtime (it does not export {missing[0]})"
    sanitizer = next((n for n in binary.needed if n.startswith(SANITIZER_LIBRARIES)), None) or next(
        (n for n in SANITIZER_IMPORTS if n in binary.imports), None)
    if sanitizer is not None:
        return f"{path}: built with a sanitizer ({sanitizer}), which must be preloaded; it cannot run models here"
    return None
