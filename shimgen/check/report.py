"""The outcome of a check (Report) and its three renderings: text, JSON (versioned schema) and
SARIF 2.1.0. Rendering is pure: report in, string out; the CLI decides where it goes.
"""

from __future__ import annotations

from collections import Counter

from shimgen import __version__
from shimgen.binary.symbols import Binary
from shimgen.check.demangle import demangle
from shimgen.check.policy import Policy
from shimgen.check.rules import ERROR, NOTE, RULES, Finding
from shimgen.errors import printable
from shimgen.record import record

REPORT_SCHEMA = "shimgen-check/2"  # 2: notes left out of "findings", in "notes" of their own
SCHEMA_FILE = "report.schema.json"  # shipped beside this module; the JSON report validates against it
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@record
class FileSummary:
    path: str
    member: str | None
    format: str
    kind: str
    exports: int
    imports: int
    shims: int
    """Exports that are prefixed shims."""
    findings: int
    notes: int = 0


@record
class Report:
    """One meaning of "finding" everywhere: what a rule reports at error or warning severity.
    Notes (what a rule saw and judged harmless) are kept apart: never counted as findings, never
    in ``by_code``, never changing the exit code."""

    policy: Policy
    strict: bool
    files: tuple[FileSummary, ...]
    findings: tuple[Finding, ...]
    notes: tuple[Finding, ...] = ()

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0


def make_report(policy: Policy, binaries: list[Binary], findings: list[Finding], *, strict: bool) -> Report:
    real = tuple(f for f in findings if f.severity != NOTE)
    notes = tuple(f for f in findings if f.severity == NOTE)
    per_file = Counter((f.path, f.member) for f in real)
    notes_per_file = Counter((f.path, f.member) for f in notes)
    files = tuple(
        FileSummary(b.path, b.member, b.format, b.kind, b.exports.count(), b.imports.count(),
                    len(policy.prefixed_shims_among(b.exports)),
                    per_file[(b.path, b.member)], notes_per_file[(b.path, b.member)])
        for b in binaries
    )
    return Report(policy, strict, files, real, notes)


# Text ---------------------------------------------------------------------------------------------------

_COLORS = {"error": "\033[31m", "warning": "\033[33m", "note": "\033[36m", "bold": "\033[1m", "dim": "\033[2m", "reset": "\033[0m"}


def render_text(report: Report, color: bool = False, verbose: bool = False) -> str:
    """Findings grouped by file; notes (findings a rule judged harmless) listed only with
    ``verbose``, and counted apart from the findings either way."""

    def paint(text: str, style: str) -> str:
        return f"{_COLORS[style]}{text}{_COLORS['reset']}" if color else text

    shown = report.findings + (report.notes if verbose else ())
    by_file: dict[tuple[str, str | None], list[Finding]] = {}
    for finding in shown:
        by_file.setdefault((finding.path, finding.member), []).append(finding)
    lines: list[str] = []
    for summary in report.files:
        found = by_file.get((summary.path, summary.member), [])
        if not found:
            continue
        # Paths, members and symbols come from the input: escape what a terminal would act on.
        name = printable(f"{summary.path}({summary.member})" if summary.member else summary.path)
        lines.append(paint(name, "bold") + paint(
            f"  [{summary.format} {summary.kind}: {summary.exports} exports, {summary.shims} shims, "
            f"{summary.imports} imports]", "dim"))
        hinted: set[str] = set()
        for finding in found:
            demangled = demangle(finding.symbol)
            # The symbol and the message come from the input: escape what a terminal would act on.
            symbol = printable(finding.symbol if demangled == finding.symbol else f"{finding.symbol} ({demangled})")
            lines.append(f"  {paint(finding.severity, finding.severity)} {finding.code} {symbol}: "
                         f"{printable(finding.message)}")
            if finding.hint not in hinted:  # one hint per fix per file: 329 identical hints help nobody
                hinted.add(finding.hint)
                lines.append(paint(f"      hint: {printable(finding.hint)}", "dim"))
    counts = Counter(f.code for f in report.findings)
    files = len(report.files)
    noted = ""
    if report.notes:
        noted = f"; {len(report.notes)} note(s)" + ("" if verbose else " (shown with -v)")
    if report.findings:
        codes = ", ".join(f"{code} x{n}" for code, n in sorted(counts.items()))
        lines.append(paint(f"{len(report.findings)} finding(s) in {files} binar{'y' if files == 1 else 'ies'}: "
                           f"{codes}{noted}", "error" if report.errors else "warning"))
    else:
        lines.append(f"clean: {files} binar{'y' if files == 1 else 'ies'} checked, prefix '{printable(report.policy.prefix)}'"
                     + (" (strict)" if report.strict else "") + noted)
    return "\n".join(lines) + "\n"


# JSON ---------------------------------------------------------------------------------------------------


def _finding_data(f: Finding) -> dict:
    return {"code": f.code, "severity": f.severity, "title": f.rule.title, "symbol": f.symbol,
            "demangled": demangle(f.symbol), "path": f.path, "member": f.member, "message": f.message,
            "hint": f.hint}


def report_data(report: Report) -> dict:
    counts = Counter(f.code for f in report.findings)
    severities = Counter(f.severity for f in report.findings)
    return {
        "schema": REPORT_SCHEMA,
        "generator": f"shimgen {__version__}",
        "policy": {**report.policy.describe(), "strict": report.strict},
        "files": [
            {"path": s.path, "member": s.member, "format": s.format, "kind": s.kind, "exports": s.exports,
             "shims": s.shims, "imports": s.imports, "findings": s.findings, "notes": s.notes}
            for s in report.files
        ],
        "findings": [_finding_data(f) for f in report.findings],
        "notes": [_finding_data(f) for f in report.notes],
        "summary": {
            "files": len(report.files),
            "findings": len(report.findings),
            "errors": severities.get("error", 0),
            "warnings": severities.get("warning", 0),
            "by_code": dict(sorted(counts.items())),
            "notes": len(report.notes),
            "notes_by_code": dict(sorted(Counter(f.code for f in report.notes).items())),
            "exit_code": report.exit_code,
        },
    }


def schema_path():
    from pathlib import Path

    return Path(__file__).with_name(SCHEMA_FILE)


def render_json(report: Report) -> str:
    import json

    return json.dumps(report_data(report), indent=2) + "\n"


# SARIF 2.1.0 ----------------------------------------------------------------------------------------------


def render_sarif(report: Report) -> str:
    codes = list(RULES)
    rules = [
        {
            "id": rule.code,
            "name": rule.title.title().replace(" ", ""),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.explanation},
            "help": {"text": rule.hint},
            "defaultConfiguration": {"level": rule.severity},
        }
        for rule in RULES.values()
    ]
    results = []
    for finding in report.findings + report.notes:  # notes as results of level "note"
        logical = [{"name": finding.symbol, "fullyQualifiedName": demangle(finding.symbol), "kind": "function"}]
        if finding.member:
            logical.append({"name": finding.member, "kind": "module"})
        results.append({
            "ruleId": finding.code,
            "ruleIndex": codes.index(finding.code),
            "level": finding.severity,
            "message": {"text": f"{finding.symbol}: {finding.message}. Fix: {finding.hint}"},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": _uri(finding.path)}},
                "logicalLocations": logical,
            }],
        })
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "shimgen", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }
    import json

    return json.dumps(document, indent=2) + "\n"


def _uri(path: str) -> str:
    from pathlib import PurePath
    from urllib.parse import quote

    return quote(PurePath(path).as_posix())
