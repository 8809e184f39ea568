"""Objects and archives against binutils as the oracle (tests/hardening/object_mutants.py builds
the mutants: header and section-table flips, extreme field values, splices, cuts, archive member
headers, long-name tables and symbol indexes, from a gcc-built .o and .a, seed 14).

For every mutant: no crash, hang or traceback; exit 2 comes with exactly one error line naming
the file; where nm cannot read the file, check-symbols does not exit 0; where readelf shows a
plain shim exported GLOBAL DEFAULT, check-symbols does not exit 0. The mutants run through the
same in-process driver as test_malformed.py (a per-case alarm and a 1 GiB address-space limit).
"""

from __future__ import annotations

import glob
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from shimgen.binary.load import EmptyArchive, load_paths
from shimgen.errors import InputError
from tests.hardening import object_mutants
from tests.hardening.test_malformed import _run_group
from tests.support import run_shimgen

pytestmark = pytest.mark.skipif(any(shutil.which(t) is None for t in ("gcc", "ar", "nm", "readelf", "objdump")),
                                reason="gcc and binutils needed")

ARGS = ["--prefix", object_mutants.P, "--pattern", "aoti_torch_*"]
STATS: dict[str, int] = {}


@pytest.fixture(scope="module")
def mutants(tmp_path_factory):
    root = tmp_path_factory.mktemp("objects")
    bases = object_mutants.build_bases(root / "bases")
    cases = object_mutants.corpus(bases, seed=14)
    paths = []
    for mutant in cases:
        path = root / "m" / mutant.name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(mutant.content)
        paths.append(path)
    return root, cases, paths


@pytest.fixture(scope="module")
def oracle(mutants):
    _, _, paths = mutants
    return object_mutants.nm_unreadable(paths), object_mutants.readelf_plain_exports(paths)


@pytest.fixture(scope="module")
def outcomes(mutants, tmp_path_factory):
    _, _, paths = mutants
    jobs = [{"id": p.name, "path": str(p), "args": ["check-symbols", str(p), *ARGS], "patch": [], "expect": "bad"}
            for p in paths]
    results: dict = {}
    threads = []
    for index in range(2):  # the CI machine has two cores
        workdir = tmp_path_factory.mktemp(f"oracle-driver{index}")
        thread = threading.Thread(target=_run_group, args=(jobs[index::2], results, workdir))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return results


def test_bases_are_read_as_binutils_reads_them(mutants, oracle):
    root, _, _ = mutants
    bases = [root / "bases" / n for n in ("good.o", "leak.o", "libshort.a", "liblongnames.a")]
    unreadable, plain = object_mutants.nm_unreadable(bases), object_mutants.readelf_plain_exports(bases)
    assert unreadable == {} and set(plain) == {"leak.o", "libshort.a", "liblongnames.a"}
    codes = {b.name: run_shimgen("check-symbols", b, *ARGS).returncode for b in bases}
    assert codes == {"good.o": 0, "leak.o": 1, "libshort.a": 1, "liblongnames.a": 1}


def test_every_mutant_binutils_refuses_or_flags_is_not_clean(mutants, oracle, outcomes):
    _, cases, _ = mutants
    unreadable, plain = oracle
    failures = []
    for mutant in cases:
        result = outcomes.get(mutant.name)
        if result is None:
            failures.append(f"{mutant.name}: no result")
            continue
        code, stderr = result["code"], result["stderr"]
        everything = result["stdout"] + stderr + result["native"] + (result["escaped"] or "")
        if result.get("hang"):
            failures.append(f"{mutant.name}: hang")
        elif code not in (0, 1, 2) or result["escaped"] or "Traceback" in everything:
            failures.append(f"{mutant.name}: crash (exit {code}): {everything[-400:]}")
        elif code == 2 and (len(stderr.splitlines()) != 1 or not stderr.startswith("shimgen: error: ")
                            or mutant.name not in stderr):
            failures.append(f"{mutant.name}: exit 2 without one error line naming the file: {stderr!r}")
        elif code == 0 and mutant.name in unreadable:
            failures.append(f"{mutant.name}: clean, but nm says: {unreadable[mutant.name]}")
        elif code == 0 and mutant.name in plain:
            failures.append(f"{mutant.name}: clean, but readelf shows {plain[mutant.name]} exported GLOBAL DEFAULT")
    STATS.update(mutants=len(cases), nm_unreadable=len(unreadable), readelf_plain=len(plain),
                 refused=sum(1 for r in outcomes.values() if r["code"] == 2))
    assert len(cases) >= 300 and {m.kind for m in cases} >= {"header", "sht", "field", "splice", "cut", "ar-header",
                                                            "ar-size", "ar-fmag", "ar-index", "ar-names", "ar-member"}
    # The oracle must have had something to say, or the test proves nothing.
    assert len(unreadable) > 50 and len(plain) > 5
    assert not failures, f"{len(failures)} of {len(cases)} mutants:\n" + "\n".join(failures[:30])


def test_valid_objects_binutils_reads_are_accepted(tmp_path):
    """What real archives hold: an object without a symbol table (an empty translation unit,
    stripped; Debian's libc.a and libsqlite3.a have such members) and a non-object member
    (ld links past it); nm and objdump read both."""
    (tmp_path / "empty.c").write_text("")
    (tmp_path / "leak.c").write_text(f"{object_mutants.EXPORT} int aoti_torch_c(void){{return 3;}}\n")
    (tmp_path / "notes.txt").write_text("not an object\n")
    subprocess.run(["gcc", "-c", "-o", tmp_path / "empty.o", tmp_path / "empty.c"], check=True)
    subprocess.run(["strip", "--strip-all", tmp_path / "empty.o"], check=True)
    subprocess.run(["gcc", "-fPIC", "-c", "-o", tmp_path / "leak.o", tmp_path / "leak.c"], check=True)
    assert "no symbols" in subprocess.run(["nm", tmp_path / "empty.o"], capture_output=True, text=True).stderr
    subprocess.run(["ar", "rcs", tmp_path / "libmixed.a", tmp_path / "empty.o", tmp_path / "leak.o",
                    tmp_path / "notes.txt"], check=True)
    assert run_shimgen("check-symbols", tmp_path / "empty.o", *ARGS).returncode == 0
    result = run_shimgen("check-symbols", tmp_path / "libmixed.a", *ARGS)
    assert result.returncode == 1 and "SG001 aoti_torch_c" in result.stdout, result.stderr
    # An archive without members (glibc's librt.a is one): nothing to check when named alone,
    # passed over inside a directory.
    (tmp_path / "librt.a").write_bytes(b"!<arch>\n")
    assert subprocess.run(["nm", tmp_path / "librt.a"], capture_output=True).returncode == 0
    alone = run_shimgen("check-symbols", tmp_path / "librt.a", *ARGS)
    assert alone.returncode == 2 and "empty archive" in alone.stderr
    walked = run_shimgen("check-symbols", tmp_path, *ARGS)
    assert walked.returncode == 1 and "SG001 aoti_torch_c" in walked.stdout, walked.stderr


def test_a_damaged_object_member_is_refused(tmp_path):
    """A member named as an object whose ELF magic is damaged: nm says "file format not
    recognized"; it must not drop out of the check (its plain shim would go unseen)."""
    (tmp_path / "leak.c").write_text(f"{object_mutants.EXPORT} int aoti_torch_c(void){{return 3;}}\n")
    (tmp_path / "good.c").write_text(f"{object_mutants.EXPORT} int {object_mutants.P}aoti_torch_a(void){{return 1;}}\n")
    for name in ("leak", "good"):
        subprocess.run(["gcc", "-fPIC", "-c", "-o", tmp_path / f"{name}.o", tmp_path / f"{name}.c"], check=True)
    subprocess.run(["ar", "rcs", tmp_path / "lib.a", tmp_path / "good.o", tmp_path / "leak.o"], check=True)
    data = bytearray((tmp_path / "lib.a").read_bytes())
    member = next(m for m in object_mutants.ar_members(bytes(data)) if m.name == b"leak.o/")
    data[member.header + 60 + 1] ^= 0x20  # "\x7fELF" -> "\x7feLF"
    (tmp_path / "lib.a").write_bytes(bytes(data))
    assert "file format not recognized" in subprocess.run(["nm", tmp_path / "lib.a"], capture_output=True,
                                                          text=True).stderr
    result = run_shimgen("check-symbols", tmp_path / "lib.a", *ARGS)
    assert result.returncode == 2 and "leak.o" in result.stderr and len(result.stderr.splitlines()) == 1


def test_the_systems_static_archives_are_read_where_nm_reads_them():
    """Real third-party archives (Debian's libc.a, libsqlite3.a, libstdc++.a, ...): wherever nm
    reads an archive without an error line, check-symbols reads it too (exit 0 or 1), but for an
    archive without members named alone."""
    archives = sorted({*glob.glob("/usr/lib/x86_64-linux-gnu/*.a"), *glob.glob("/usr/lib/gcc/*/*/*.a")})
    if len(archives) < 10:
        pytest.skip("fewer than 10 system static archives installed")
    paths = [Path(a) for a in archives if Path(a).read_bytes()[:8] == b"!<arch>\n"]
    refused_by_nm = object_mutants.nm_unreadable(paths)
    problems, read = [], 0
    for path in paths:
        if path.name in refused_by_nm:
            continue
        try:
            load_paths([path])
            read += 1
        except EmptyArchive:
            continue
        except InputError as error:
            problems.append(str(error))
    assert read >= 10 and not problems, problems[:10]
