"""Print the malformed-input counts at the end of a session that ran them (for the closing note)."""

from __future__ import annotations

import json
import time
from pathlib import Path

_STARTED = time.time()
SUMMARY = Path(".pytest_cache") / "shimgen-hardening-summary.json"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    path = Path(config.rootpath) / SUMMARY
    if not path.is_file() or path.stat().st_mtime < _STARTED:
        return
    stats = json.loads(path.read_text())
    terminalreporter.write_sep("-", "check-symbols on malformed input")
    terminalreporter.write_line(
        f"inputs {stats['inputs']} (must refuse {stats['must_refuse']}, refused {stats['refused']}), "
        f"crashes {stats['crashes']}, hangs {stats['hangs']}, worst {stats['worst_seconds']:.2f} s "
        f"({stats['worst_case']}), peak RSS {stats['peak_rss_mb']:.0f} MB of the 1024 MB limit; "
        f"{stats.get('process_sample', 0)} also as separate processes (worst {stats.get('process_worst_seconds', 0):.2f} s)")
    for reason in stats.get("skipped", []):
        terminalreporter.write_line(f"  not covered here: {reason}")
