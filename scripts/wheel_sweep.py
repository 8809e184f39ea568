"""Sweep popular PyPI wheels with `shimgen check-symbols` and classify what it says.

For each wheel (downloaded with `pip download` into a cache, cp311 manylinux x86_64):

- exit status: 2 on a valid PyPI wheel is a refusal, and a bug;
- the three formats against each other: text's last line, JSON's summary and arrays, SARIF's
  result levels must give the same finding and note counts;
- every SG007 error, by independent evidence from binutils on the unzipped members: `readelf -s`
  shows the symbol LOCAL (or the library linked -Bsymbolic / the symbol PROTECTED) in the binder,
  `readelf -d` the DT_NEEDED chain between the two libraries, and `nm -D` the names of the
  symbol's namespace one imports and the other defines. "reachable" when a name crosses along a
  DT_NEEDED edge, "FALSE" when none does;
- every SG010 (bundled library exported), and every one it should have made, by `nm -D
  --defined-only` (the family's anchors exported) and `readelf -d` (the SONAME is not the
  library's own) on each ELF member;
- `--strict`: the SG006 count, and whether any `PyInit_*` is among them (it must not be).

    python scripts/wheel_sweep.py [--cache DIR] [NAME ...]

The default set is popular wheels that issue 20 did not name.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The rule's definition of a namespace (the evidence that names cross comes from binutils, not shimgen).
from shimgen.check.reach import namespace_of as namespace

DEFAULT = ("grpcio", "orjson", "psycopg-binary", "pyzmq", "h5py", "opencv-python-headless", "shapely", "pymupdf", "av",
           "soundfile", "regex", "zstandard", "lz4")
PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_27_x86_64", "manylinux_2_28_x86_64")


def shimgen(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "shimgen", *args], capture_output=True, text=True, env=env,
                          check=False)


def fetch(cache: Path, name: str) -> Path | None:
    stem = name.replace("-", "_").lower() + "-"
    found = sorted(p for p in cache.glob("*.whl") if p.name.lower().startswith(stem))
    if not found:
        platforms = [a for p in PLATFORMS for a in ("--platform", p)]
        subprocess.run([sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps",
                        "--disable-pip-version-check", "--python-version", "3.11", "--implementation", "cp",
                        *platforms, "-d", str(cache), name], capture_output=True, check=False)
        found = sorted(p for p in cache.glob("*.whl") if p.name.lower().startswith(stem))
    return found[-1] if found else None


def formats_agree(wheel: Path) -> tuple[bool, int, int, str]:
    """(agree, findings, notes, why not) from text, JSON and SARIF of one check."""
    common = [str(wheel), "--prefix", "p_"]
    runs = {kind: shimgen("check-symbols", *common, "--format", kind) for kind in ("json", "sarif")}
    broken = [f"{kind}: exit {run.returncode} {run.stderr.strip()[-160:]}" for kind, run in runs.items()
              if run.returncode not in (0, 1) or not run.stdout.strip()]
    if broken:
        return False, 0, 0, "; ".join(broken)
    data = json.loads(runs["json"].stdout)
    sarif = json.loads(runs["sarif"].stdout)["runs"][0]["results"]
    last = shimgen("check-symbols", *common).stdout.strip().splitlines()[-1]
    findings, notes = data["summary"]["findings"], data["summary"]["notes"]
    said = re.match(r"(\d+) finding", last)
    text_findings = int(said.group(1)) if said else 0
    noted = re.search(r"(\d+) note\(s\)", last)
    text_notes = int(noted.group(1)) if noted else 0
    checks = {
        "json arrays": (len(data["findings"]), len(data["notes"])) == (findings, notes),
        "by_code": sum(data["summary"]["by_code"].values()) == findings,
        "sarif": (sum(r["level"] != "note" for r in sarif), sum(r["level"] == "note" for r in sarif)) == (findings, notes),
        "text": (text_findings, text_notes) == (findings, notes),
    }
    wrong = [k for k, ok in checks.items() if not ok]
    return not wrong, findings, notes, ", ".join(wrong)


def binutils(tool: list[str], path: Path) -> str:
    return subprocess.run([*tool, str(path)], capture_output=True, text=True, check=False).stdout


def classify_sg007(wheel: Path, errors: list[dict], notes: list[dict]) -> list[str]:
    """One verdict per SG007 error, from readelf and nm on the unzipped members."""
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="sweep-") as scratch, zipfile.ZipFile(wheel) as archive:
        def member(name: str) -> Path:
            target = Path(scratch) / name
            if not target.exists():
                archive.extract(name, scratch)
            return target

        holders: dict[str, set[str]] = {}
        for f in errors + notes:
            holders.setdefault(f["symbol"], set()).add(f["member"])
        for error in errors:
            binder = member(error["member"])
            space = namespace(error["symbol"])
            symtab = binutils(["readelf", "-W", "-s"], binder)
            local = bool(re.search(rf"TLS\s+LOCAL\s+\w+\s+\S+\s+{re.escape(error['symbol'])}\b", symtab)) or \
                "PROTECTED" in next((row for row in symtab.splitlines() if error["symbol"] in row), "")
            reach = []
            for other_name in sorted(holders[error["symbol"]] - {error["member"]}):
                other = member(other_name)
                for a, b in ((binder, other), (other, binder)):  # a imports from b, which a NEEDs
                    needed = re.findall(r"\(NEEDED\).*\[(.+)\]", binutils(["readelf", "-W", "-d"], a))
                    soname = re.findall(r"\(SONAME\).*\[(.+)\]", binutils(["readelf", "-W", "-d"], b))
                    if not {b.name, *soname} & set(needed):
                        continue
                    wanted = {line.split()[-1] for line in binutils(["nm", "-D", "--undefined-only"], a).splitlines()}
                    defined = {line.split()[-1] for line in binutils(["nm", "-D", "--defined-only"], b).splitlines()}
                    crossing = [n for n in wanted & defined if namespace(n) == space]
                    if crossing:
                        reach.append(f"{a.name} NEEDs {b.name}, imports {len(crossing)} {space}")
            verdicts.append(("reachable" if reach and local else "FALSE") + f" ({error['symbol'][:40]} in "
                            f"{binder.name}: {'LOCAL' if local else 'not local'}; {'; '.join(reach) or 'no crossing'})")
    return verdicts


def classify_sg010(wheel: Path, findings: list[dict]) -> list[str]:
    """SG010 against binutils on every ELF member: a family counts as exported where ``nm -D
    --defined-only`` lists at least ``min_anchors`` of its anchors (libraries.json) and neither
    ``readelf -d``'s SONAME nor the file name is the library's own. "MISSED" where binutils sees one
    and SG010 is quiet, "FALSE" where SG010 reports one binutils does not see; a binary exporting 25
    or more names under a family's member prefixes without its anchors is listed to look at by hand."""
    import fnmatch

    data = json.loads((ROOT / "shimgen" / "check" / "libraries.json").read_text())
    need = data.get("min_anchors", 2)
    said = {(f["member"], family["name"]) for f in findings if f["code"] == "SG010"
            for family in data["families"] if f"symbols of {family['name']} (" in f["message"]}
    seen, verdicts = set(), []
    with tempfile.TemporaryDirectory(prefix="sweep-") as scratch, zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            with archive.open(info) as handle:
                if info.is_dir() or handle.read(4) != b"\x7fELF":
                    continue
            path = Path(archive.extract(info, scratch))
            names = {line.split()[-1].split("@")[0] for line in
                     binutils(["nm", "-D", "--defined-only"], path).splitlines() if len(line.split()) >= 3}
            dynamic = binutils(["readelf", "-W", "-d"], path)
            soname = re.findall(r"\(SONAME\).*\[(.+)\]", dynamic)
            symbolic = "SYMBOLIC" in dynamic
            for family in data["families"]:
                anchors = [a for a in family["anchors"] if a in names]
                members = sum(n.startswith(tuple(family["members"])) for n in names)
                itself = any(fnmatch.fnmatchcase(x, g) for g in family["sonames"] for x in (*soname, path.name))
                if len(anchors) >= need and not itself:
                    seen.add((info.filename, family["name"]))
                    verdict = "true" if (info.filename, family["name"]) in said else "MISSED"
                    verdicts.append(f"SG010 {verdict}: {path.name} exports {len(anchors)} anchors, {members} names "
                                    f"of {family['name']}{' (-Bsymbolic)' if symbolic else ''}")
                elif members >= 25 and not itself and len(anchors) < need:
                    verdicts.append(f"SG010 look: {path.name} exports {members} names under {family['name']}'s "
                                    f"prefixes, {len(anchors)} anchors")
    verdicts += [f"SG010 FALSE: {member} {family} (binutils sees no export)" for member, family in sorted(said - seen)]
    return verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("SHIMGEN_WHEEL_CACHE", Path.home() / ".cache" / "shimgen-wheels")))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"{'wheel':<46} {'exit':>4} {'sec':>5} {'findings':<22} {'notes':>5} {'formats':<8} {'strict SG006':>12}")
    problems = 0
    details = []
    for name in args.names or DEFAULT:
        wheel = fetch(args.cache, name)
        if wheel is None:
            print(f"{name:<46} not downloadable (offline?)")
            continue
        began = time.perf_counter()
        checked = shimgen("check-symbols", str(wheel), "--prefix", "p_", "--format", "json")
        seconds = time.perf_counter() - began
        if checked.returncode == 2:
            problems += 1
            print(f"{wheel.name[:46]:<46} {2:>4} {seconds:5.1f} REFUSED: {checked.stderr.strip()[:120]}")
            continue
        data = json.loads(checked.stdout)
        agree, _findings, notes, why = formats_agree(wheel)
        strict = json.loads(shimgen("check-symbols", str(wheel), "--prefix", "p_", "--strict", "--format",
                                    "json").stdout)
        sg006 = [f["symbol"] for f in strict["findings"] if f["code"] == "SG006"]
        pyinit = [s for s in sg006 if s.startswith("PyInit_")]
        codes = ",".join(f"{c}x{n}" for c, n in data["summary"]["by_code"].items()) or "-"
        print(f"{wheel.name[:46]:<46} {checked.returncode:>4} {seconds:5.1f} {codes:<22} {notes:>5} "
              f"{'agree' if agree else 'DIFFER':<8} {len(sg006):>12}{' PyInit!' if pyinit else ''}")
        problems += (not agree) + bool(pyinit)
        if not agree:
            details.append(f"{wheel.name}: formats differ in {why}")
        sg007 = [f for f in data["findings"] if f["code"] == "SG007"]
        if sg007:
            for verdict in classify_sg007(wheel, sg007, [n for n in data["notes"] if n["code"] == "SG007"]):
                problems += verdict.startswith("FALSE")
                details.append(f"{wheel.name}: SG007 {verdict}")
        for verdict in classify_sg010(wheel, data["findings"]):
            problems += verdict.startswith(("SG010 MISSED", "SG010 FALSE"))
            details.append(f"{wheel.name}: {verdict}")
        for finding in data["findings"]:
            if finding["code"] not in ("SG007", "SG010"):
                details.append(f"{wheel.name}: {finding['code']} {finding['symbol']} in {finding['member']}")
    for line in details:
        print("  " + line)
    print(f"problems: {problems}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
