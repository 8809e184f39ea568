"""``shimgen repair``: seal built ELF libraries and wheels so nothing outside binds into their
private copies (hide), or give a grafted library's API a prefix in it and its consumers (prefix).

``plan`` decides (pure), ``edit`` changes copies, ``verify`` compares what was re-read with the
plan, ``run`` is the I/O edge. The family data is the bundled-library rule's (check.libraries).
"""

from shimgen.repair.plan import ENTRY_POINTS, BinaryPlan, Plan
from shimgen.repair.run import Options, Result, repair

__all__ = ["ENTRY_POINTS", "BinaryPlan", "Options", "Plan", "Result", "repair"]
