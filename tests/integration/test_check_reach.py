"""SG007 on a third-party thread-local decided by reachability, proven by running the binaries.

Three libraries hold a copy of ``rg::counter`` (a thread-local numbering, as riegeli's
``CurrentThreadNumber``):

- liba exports it with ``rg::next()``, which numbers with it;
- libb (tensorflow's libtensorflow_cc shape) NEEDs liba and calls ``rg::next()`` from it, yet keeps a
  LOCAL copy of the counter for its own inlined ``rg`` code: one component, two numberings;
- libp keeps a wholly private copy (no DT_NEEDED on liba, no ``rg`` name imported or exported):
  pyarrow's libarrow_flight and its private re2. Its numbering is consistent; an error would be false.

The program prints each library's numbering of three calls; the rule must say error exactly on libb.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.check import Policy, check_paths, render_json, render_sarif, render_text

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

POLICY = Policy.from_options("executorch_", ("aoti_torch_*",))
COUNTER = "_ZN2rg7counterE"
STATE = "namespace rg {{ thread_local int counter = 0; int {fn}() {{ return ++counter; }} }}\n"
USER = ('namespace rg {{ int next(); int next_here(); }}\n'
        'extern "C" __attribute__((visibility("default"))) void {lib}_sequence(int *out) {{ {body} }}\n')
MAIN = ('#include <stdio.h>\nvoid b_sequence(int *); void p_sequence(int *);\n'
        'int main(void) { int b[3], c[3]; b_sequence(b); p_sequence(c);\n'
        '  printf("b %d %d %d\\np %d %d %d\\n", b[0], b[1], b[2], c[0], c[1], c[2]); return 0; }\n')


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("reach")

    def run(*args: str) -> str:
        return subprocess.run(list(args), check=True, capture_output=True, text=True, cwd=d).stdout

    (d / "a.cc").write_text(STATE.format(fn="next"))
    (d / "rg_here.cc").write_text(STATE.format(fn="next_here"))
    (d / "b.cc").write_text(USER.format(lib="b", body="out[0] = rg::next(); out[1] = rg::next(); "
                                                      "out[2] = rg::next_here();"))
    (d / "p.cc").write_text(USER.format(lib="p", body="for (int i = 0; i < 3; ++i) out[i] = rg::next_here();"))
    run("g++", "-shared", "-fPIC", "-o", "liba.so", "a.cc")
    run("g++", "-c", "-fPIC", "-fvisibility=hidden", "rg_here.cc", "-o", "rg_here.o")  # the static copy
    run("g++", "-shared", "-fPIC", "-o", "libb.so", "b.cc", "rg_here.o", "-L.", "-la", "-Wl,-rpath,$ORIGIN")
    run("g++", "-shared", "-fPIC", "-o", "libp.so", "p.cc", "rg_here.o")
    (d / "main.c").write_text(MAIN)
    run("gcc", "-o", "main", "main.c", "-L.", "-lb", "-lp", "-la", "-Wl,-rpath,$ORIGIN")
    numbering = {line.split()[0]: [int(v) for v in line.split()[1:]] for line in run("./main").splitlines()}
    return {"dir": d, "libs": [d / "liba.so", d / "libb.so", d / "libp.so"], "numbering": numbering,
            "readelf": {n: run("readelf", "-W", "-d", "-s", f"lib{n}.so") for n in "abp"}}


def _tls_binding(readelf: str) -> set[str]:
    """The bindings readelf shows for rg::counter (.dynsym and .symtab)."""
    return {m.group(1) for m in re.finditer(rf"TLS\s+(\w+)\s+\w+\s+\S+\s+{COUNTER}\b", readelf)}


def test_the_shapes_are_what_they_claim(built):
    """Independent evidence (readelf): both b and p bind their copy LOCAL, a exports its copy;
    b NEEDs a and imports rg::next; p neither."""
    readelf = built["readelf"]
    assert _tls_binding(readelf["a"]) == {"GLOBAL"}
    assert _tls_binding(readelf["b"]) == _tls_binding(readelf["p"]) == {"LOCAL"}
    assert "(NEEDED)" in readelf["b"] and "[liba.so]" in readelf["b"] and "[liba.so]" not in readelf["p"]
    assert re.search(r"UND _ZN2rg4nextEv", readelf["b"]) and "_ZN2rg4nextEv" not in readelf["p"]


def test_two_numberings_in_b_one_in_p(built):
    assert built["numbering"]["b"] == [1, 2, 1], "b: rg::next from liba, then its own copy: two numberings"
    assert built["numbering"]["p"] == [1, 2, 3], "p: its private copy only: one numbering"


def test_sg007_is_an_error_on_b_only(built):
    report = check_paths(built["libs"], POLICY)
    sg007 = [f for f in report.findings if f.code == "SG007"]
    assert {(Path(f.path).name, f.symbol) for f in sg007} == {("libb.so", COUNTER)}, [f.message for f in sg007]
    (finding,) = sg007
    assert "liba.so" in finding.message and "imports 1 rg name(s)" in finding.message
    assert "link rg once" in finding.hint and "shim archive" not in finding.hint
    notes = {(Path(f.path).name, f.symbol) for f in report.notes if f.code == "SG007"}
    assert notes == {("liba.so", COUNTER), ("libp.so", COUNTER)}
    assert report.exit_code == 1


def test_without_the_crossing_it_is_a_note(built):
    """The negative control: libp alone with liba (no crossing) is clean, notes aside."""
    report = check_paths([built["libs"][0], built["libs"][2]], POLICY)
    assert report.findings == () and report.exit_code == 0
    assert {Path(f.path).name for f in report.notes} == {"liba.so", "libp.so"}


def test_the_three_formats_agree_on_findings_and_notes(built):
    """Text, JSON and SARIF count the same findings (errors) and the same notes."""
    import json

    report = check_paths(built["libs"], POLICY)
    data = json.loads(render_json(report))
    sarif = json.loads(render_sarif(report))["runs"][0]["results"]
    text = render_text(report)
    verbose = render_text(report, verbose=True)
    findings, notes = len(report.findings), len(report.notes)
    assert (findings, notes) == (1, 2)
    assert data["summary"]["findings"] == len(data["findings"]) == findings
    assert data["summary"]["notes"] == len(data["notes"]) == notes
    assert data["summary"]["errors"] == findings and data["summary"]["by_code"] == {"SG007": findings}
    assert all(n["severity"] == "note" for n in data["notes"])
    assert sum(r["level"] != "note" for r in sarif) == findings and sum(r["level"] == "note" for r in sarif) == notes
    for shown in (text, verbose):
        assert f"{findings} finding(s) in 3 binaries: SG007 x{findings}" in shown
        assert f"{notes} note(s)" in shown
    assert text.count("note SG007") == 0 and verbose.count("note SG007") == notes
    jsonschema = pytest.importorskip("jsonschema")
    from shimgen.check.report import schema_path

    schema = json.loads(schema_path().read_text())
    jsonschema.validate(data, schema)
    data["findings"].append(data["notes"][0])  # a note among the findings breaks the schema
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
