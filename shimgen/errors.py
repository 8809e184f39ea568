"""Typed errors. Library code raises these; only the CLI turns them into exit codes."""

from __future__ import annotations


class ShimgenError(Exception):
    """Base of every error shimgen reports to a user (exit code 2 unless said otherwise).

    ``problems`` holds every problem found, one line each; the CLI prints each on its own line, so
    a message may contain '; ' or anything else without being split.
    """

    exit_code = 2

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


class ConfigError(ShimgenError):
    """The config is missing, malformed or inconsistent (every problem is reported at once)."""


class InputError(ShimgenError):
    """A file given to shimgen cannot be used: not a binary, truncated, corrupt, unreadable."""


class UsageError(ShimgenError):
    """A bad combination of command-line options."""


class ToolError(ShimgenError):
    """An external tool (CMake, Ninja, a compiler) failed."""


class StaleOutputs(ShimgenError):
    """``generate --check`` found outputs that differ from what the config produces."""

    exit_code = 1


def os_error_line(exc: OSError) -> str:
    """One line for an operating-system error: the path(s) it names, then the cause
    ('out/export.h: No space left on device'). Library code lets OSError rise; the CLI prints this."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    paths = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    return f"{' -> '.join(paths)}: {cause}" if paths else cause


# Characters that would act on a terminal rather than show: C0/C1 controls (newline, ESC starting
# a colour or cursor sequence, carriage return), DEL, and the bidirectional overrides and
# zero-width marks that make text display differently from what it is. A str.translate table, not
# a regular expression: compiling that character class cost every run ~4M instructions (a tenth of
# the interpreter's start), and the check of an ELF file imports no `re` at all.
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES = {
    code: _NAMED.get(chr(code)) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    for low, high in ((0x00, 0x1F), (0x7F, 0x9F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069))
    for code in range(low, high + 1)
}


def printable(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\x1b``, ``\\u202e``), so a name
    taken from input (a prefix, a symbol, a path) prints as one inert line."""
    if text.isascii() and text.isprintable():  # the common case: nothing to escape
        return text
    return text.translate(_ESCAPES)
