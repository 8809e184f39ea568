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
