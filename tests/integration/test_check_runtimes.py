"""SG009, private runtime copies: the crash class reproduced with gcc, and the family data checked.

libpriv.so is linked -static-libstdc++ and exports that copy (the default); libother.so is an
ordinary C++ library needing the system libstdc++.so.6. A program loading both: the dynamic
linker binds libstdc++ symbols of libother.so (and of libstdc++.so.6 itself) into libpriv.so's
private copy, as LD_DEBUG=bindings shows; the rule names libpriv.so, and neither libother.so nor
libstdc++.so.6. The hint (-Wl,--exclude-libs,ALL) makes both the bindings and the finding go away.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.check import Policy, check_paths
from shimgen.check.runtimes import DATA, families, parse_families
from shimgen.errors import InputError

POLICY = Policy.from_options("executorch_", ("aoti_torch_*",))
PRIV = ('#include <regex>\n#include <string>\n#include <stdexcept>\n'
        'extern "C" int priv_match(const char *s) {\n'
        '  try { if (!*s) throw std::runtime_error("empty"); return std::regex_match(s, std::regex("cuda:[0-9]+")); }\n'
        '  catch (const std::exception &) { return -1; } }\n')
OTHER = ('#include <string>\n#include <stdexcept>\n#include <sstream>\n'
         'extern "C" int other_len(const char *s) {\n'
         '  try { std::ostringstream o; o << s; if (o.str().empty()) throw std::logic_error("e"); return (int)o.str().size(); }\n'
         '  catch (const std::exception &) { return -1; } }\n')
MAIN = ('#include <stdio.h>\nint priv_match(const char *); int other_len(const char *);\n'
        'int main(void) { printf("%d %d %d\\n", priv_match("cuda:0"), other_len("abc"), other_len("")); return 0; }\n')


def build(d: Path, hide: bool) -> dict[str, Path]:
    d.mkdir()
    for name, text in (("priv.cc", PRIV), ("other.cc", OTHER), ("main.c", MAIN)):
        (d / name).write_text(text)
    def run(*a):
        return subprocess.run([*map(str, a)], check=True, capture_output=True, text=True, cwd=d)
    run("g++", "-shared", "-fPIC", "-O1", "-static-libstdc++", "-o", "libpriv.so", "priv.cc",
        *(["-Wl,--exclude-libs,ALL"] if hide else []))
    run("g++", "-shared", "-fPIC", "-O1", "-o", "libother.so", "other.cc")
    run("gcc", "-o", "main", "main.c", "-L.", "-lpriv", "-lother", "-Wl,-rpath,$ORIGIN")
    return {"priv": d / "libpriv.so", "other": d / "libother.so", "main": d / "main"}


def bindings_into_priv(main: Path) -> list[tuple[str, str]]:
    """(binding file, symbol) of every binding the dynamic linker made into libpriv.so."""
    result = subprocess.run([str(main)], capture_output=True, text=True, check=True,
                            env={**os.environ, "LD_DEBUG": "bindings"})
    assert result.stdout.split() == ["1", "3", "-1"]
    pattern = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")
    return [(Path(src).name, sym) for src, dst, sym in pattern.findall(result.stderr) if Path(dst).name == "libpriv.so"]


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_static_libstdcxx_exported_is_bound_into_by_others_and_flagged(tmp_path):
    built = build(tmp_path / "exported", hide=False)
    foreign = [(src, sym) for src, sym in bindings_into_priv(built["main"]) if src != "libpriv.so" and sym != "priv_match"]
    # The misbinding itself: libstdc++ symbols other libraries use resolve into the private copy.
    assert any(src.startswith(("libother.so", "libstdc++.so")) and sym.startswith(("_ZNSt", "_ZSt", "__cxa", "_ZTV"))
               for src, sym in foreign), foreign[:20]
    libstdcxx = Path(subprocess.run(["g++", "-print-file-name=libstdc++.so.6"], capture_output=True, text=True,
                                    check=True).stdout.strip()).resolve()
    report = check_paths([built["priv"], built["other"], libstdcxx], POLICY)
    flagged = {(f.code, Path(f.path).name) for f in report.findings if f.code == "SG009"}
    assert flagged == {("SG009", "libpriv.so")}
    (finding,) = [f for f in report.findings if f.code == "SG009"]
    assert "C++ runtime" in finding.message and report.exit_code == 1


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_the_hint_hides_the_copy_and_nothing_binds_into_it(tmp_path):
    built = build(tmp_path / "hidden", hide=True)
    # Only the library's own API is bound into it now.
    assert {sym for src, sym in bindings_into_priv(built["main"]) if src != "libpriv.so"} == {"priv_match"}
    report = check_paths([built["priv"], built["other"]], POLICY)
    assert [f for f in report.findings if f.code == "SG009"] == []


def test_the_family_data_loads_and_is_checked():
    loaded = families()
    assert {"C++ runtime (libstdc++/libc++)", "OpenMP runtime", "CUDA runtime"} <= {f.name for f in loaded}
    data = json.loads(Path(DATA).read_text())
    bad_cases = [
        {**data, "schema": "x"},
        {**data, "families": []},
        {**data, "families": [{**data["families"][0], "anchors": ["not_a_member"]}]},
        {**data, "families": [data["families"][0], data["families"][0]]},
        {**data, "families": [{**data["families"][0], "sonames": []}]},
        {**data, "families": [{**data["families"][0], "extra": 1}]},
    ]
    for bad in bad_cases:
        with pytest.raises(InputError):
            parse_families(bad, "runtimes.json")


def test_the_runtimes_themselves_are_not_flagged():
    """libstdc++.so.6, libgcc_s and torch's libgomp define their own anchors: their SONAME exempts them."""
    import importlib.util

    candidates = [Path(subprocess.run(["g++", f"-print-file-name={n}"], capture_output=True, text=True, check=False).stdout.strip())
                  for n in ("libstdc++.so.6", "libgcc_s.so.1")]
    spec = importlib.util.find_spec("torch")
    if spec and spec.submodule_search_locations:
        candidates.append(Path(spec.submodule_search_locations[0]) / "lib" / "libgomp.so.1")
    paths = [p.resolve() for p in candidates if p.is_file()]
    if not paths:
        pytest.skip("no runtime library found")
    from shimgen.binary.load import load_paths

    binaries = load_paths(paths)
    assert all(any(a in b.exports for fam in families() for a in fam.anchors) for b in binaries)  # would match
    report = check_paths(paths, POLICY)
    assert [f for f in report.findings if f.code == "SG009"] == []
