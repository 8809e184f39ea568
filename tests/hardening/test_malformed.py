"""check-symbols against malformed input: never a crash, a hang, a traceback or a false "clean".

Every case is generated here (tests/hardening/malformed.py says how and what each expects) from
binaries compiled by the test and from torch's libraries. The bounds, per input: 10 s wall time
and a 1 GiB address space (RLIMIT_AS).

How they run: the bulk goes through tests/hardening/_driver.py, which calls shimgen.cli.main
in-process for many cases per interpreter, each with its own verdict, under RLIMIT_AS and a
per-case SIGALRM that kills even a parser stuck in native code. A sample of cases then runs as
real `python -m shimgen check-symbols` processes, one per case, to prove the guarantees hold for
the actual command: exit code, a single stderr line, no traceback.
"""

from __future__ import annotations

import json
import mmap
import os
import random
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests import toolchains
from tests.hardening import malformed
from tests.hardening.malformed import Case, Corpus
from tests.support import REPO

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

MEMORY_LIMIT = 1 << 30
CASE_SECONDS = 10
DRIVER = Path(__file__).with_name("_driver.py")
TORCH_LIB = None
try:  # only the path; torch itself is never imported (it would cost seconds)
    import importlib.util

    _spec = importlib.util.find_spec("torch")
    if _spec and _spec.origin:
        TORCH_LIB = Path(_spec.origin).parent / "lib"
except (ImportError, ValueError):
    pass

STATS: dict = {}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


# A process case is bounded by its own CPU time, not by the wall clock: on a loaded 2-core machine a
# healthy case can wait for a core far longer than it computes. RLIMIT_CPU kills a spinning case
# (SIGXCPU, then SIGKILL one second later); HANG_WALL_SECONDS is only the backstop for a case that
# blocks without using the CPU (a FIFO read, a lock), so it is generous.
HANG_WALL_SECONDS = 120


def run_bounded(argv: list[str], cpu_seconds: int = CASE_SECONDS, **kwargs) -> dict:
    """Run one case as a process under the memory and CPU limits; return its exit code, output and the CPU seconds
    it used (user + system, from wait4, so it counts this child only), or hang=True when it
    was killed by the CPU limit or the wall backstop."""
    import signal
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        def limits() -> None:
            _limit_memory()
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))

        process = subprocess.Popen(argv, stdout=out, stderr=err, preexec_fn=limits, **kwargs)
        backstop = threading.Timer(HANG_WALL_SECONDS, process.kill)
        backstop.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            backstop.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        killed = process.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
        return {"code": process.returncode, "stdout": out.read().decode("utf-8", "replace"),
                "stderr": err.read().decode("utf-8", "replace"), "native": "", "escaped": None,
                "seconds": usage.ru_utime + usage.ru_stime, "hang": killed}


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Corpus, list[str]]:
    root = tmp_path_factory.mktemp("malformed")
    corpus = Corpus(root / "cases", seed=7)
    skipped: list[str] = []
    bases = malformed.build_elf_bases(root / "elf")
    for key, flips in (("so", 150), ("leak", 80), ("obj", 80), ("exe", 60)):
        corpus.elf_battery(f"gcc-{key}", bases[key].read_bytes(), truncations=40, header_flips=flips, table_flips=40)
    archive = bases["archive"].read_bytes()
    ref = corpus.file("gcc-archive", "reference", archive, "reference")
    boundaries = [offset + 60 + length + (length & 1) for _, offset, length in _members(archive)]
    for point in malformed.truncation_points(len(archive), boundaries, 30, corpus.rng):
        corpus.file("gcc-archive", f"cut_{point}", archive[:point], "bad")
    for k in range(60):
        mutated = bytearray(archive)
        position = corpus.rng.randrange(8, min(len(archive), 400))
        mutated[position] = corpus.rng.randrange(256)
        corpus.file("gcc-archive", f"flip_{k}_at_{position}", bytes(mutated), "no-crash", ref.id)

    if TORCH_LIB and (TORCH_LIB / "libc10.so").is_file():
        corpus.elf_battery("torch-c10", (TORCH_LIB / "libc10.so").read_bytes(), truncations=30, header_flips=60,
                           table_flips=10)
        big = TORCH_LIB / "libtorch_cpu.so"
        if big.is_file():
            copy = root / "libtorch_cpu.so"
            shutil.copyfile(big, copy)  # patched in place by the driver, restored after each case
            with open(big, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
                # An mmap: the targeted fields are read from the file without loading its 434 MB.
                corpus.elf_battery("torch-cpu", view, truncations=6, header_flips=0, table_flips=0, in_place=copy)
    else:
        skipped.append("torch not installed: no torch libraries in the corpus")

    library = bases["so"].read_bytes()
    corpus.random_behind_magic(16)
    malformed.zip_cases(corpus, library)
    skipped += malformed.special_cases(corpus, library, bases["lto"], bases["lto_archive"])

    if toolchains.has_zig():
        (root / "bitcode.c").write_text("int only_bitcode(void){return 1;}\n")
        toolchains.bitcode_object(root / "bitcode.c", root / "bitcode.o")
        corpus.add(Case("special/llvm_bitcode_object", str(root / "bitcode.o"), "bad", "special"))
    pe = malformed.build_pe(root / "pe")
    if pe:
        data = pe.read_bytes()
        needed, structural_end, targeted = malformed.pe_targeted(data)
        corpus.generic_battery("pe", data, needed, targeted, truncations=30, flips=80, structural_end=structural_end)
    else:
        skipped.append(f"zig missing: no PE or bitcode cases ({toolchains.INSTALL_HINT})")
    coff = malformed.build_coff(root / "coff")
    if coff:
        data = coff.read_bytes()
        needed, structural_end, targeted = malformed.coff_targeted(data)
        corpus.generic_battery("coff", data, needed, targeted, truncations=20, flips=40, structural_end=structural_end)
    macho = malformed.build_macho(root / "macho")
    if macho:
        data = macho["dylib"].read_bytes()
        needed, structural_end, targeted = malformed.macho_targeted(data)
        corpus.generic_battery("macho", data, needed, targeted, truncations=30, flips=80, structural_end=structural_end)
        if "fat" in macho:
            fat = macho["fat"].read_bytes()
            corpus.generic_battery("macho-fat", fat, len(fat), malformed.fat_targeted(fat), truncations=20, flips=40,
                                   structural_end=64)
    else:
        skipped.append(f"zig missing: no Mach-O cases ({toolchains.INSTALL_HINT})")
    corpus.add_symbols_variants(skip_groups=("torch-cpu", "zip"))
    return corpus, skipped


def _members(archive: bytes):
    """(name, header offset, size) of each archive member, the index included."""
    offset, out = 8, []
    while offset + 60 <= len(archive):
        length = int(archive[offset + 48:offset + 58])
        out.append((archive[offset:offset + 16].strip(), offset, length))
        offset += 60 + length + (length & 1)
    return out


def _driver_alarms() -> tuple[int, ...]:
    """The signals the driver's per-case CPU-time and wall-time alarms kill it with."""
    import signal

    return (signal.SIGPROF, signal.SIGALRM)


def _run_group(cases: list[dict], results: dict, workdir: Path) -> None:
    """Run cases through the driver; restart after a process death, blaming the case in progress."""
    cases_file = workdir / "cases.json"
    cases_file.write_text(json.dumps(cases))
    out = workdir / "results.jsonl"
    start = 0
    while start < len(cases):
        process = subprocess.run([sys.executable, str(DRIVER), str(cases_file), str(out), str(start)], env=_env(),
                                 preexec_fn=_limit_memory, capture_output=True, text=True, timeout=900)
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        done = {line["id"]: line for line in lines if "id" in line}
        results.update(done)
        if process.returncode == 0:
            break
        begun = [line["begin"] for line in lines if "begin" in line]
        culprit = begun[-1]
        killed_by_alarm = -process.returncode in _driver_alarms()
        results[culprit] = {"id": culprit, "code": None, "stdout": "", "stderr": process.stderr[-2000:], "native": "",
                            "escaped": f"driver died with {process.returncode}", "seconds": CASE_SECONDS if killed_by_alarm else 0,
                            "maxrss_kb": 0, "hang": killed_by_alarm}
        start = next(i for i, case in enumerate(cases) if case["id"] == culprit) + 1


@pytest.fixture(scope="module")
def outcomes(corpus, tmp_path_factory) -> dict:
    cases, _ = corpus
    groups: dict[str, list[dict]] = {}
    for case in cases.cases:
        groups.setdefault(case.group, []).append(case.as_json())
    # Two workers (the CI machine has two cores); the big libtorch group alone in one of them.
    ordered = sorted(groups.values(), key=len, reverse=True)
    buckets: list[list[dict]] = [[], []]
    for group in ordered:
        min(buckets, key=len).extend(group)
    results: dict = {}
    began = time.monotonic()
    threads = []
    for index, bucket in enumerate(buckets):
        workdir = tmp_path_factory.mktemp(f"driver{index}")
        thread = threading.Thread(target=_run_group, args=(bucket, results, workdir))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    STATS["in_process_seconds"] = time.monotonic() - began
    for path in {case.path for case in cases.cases if case.patch}:
        Path(path).unlink(missing_ok=True)  # the 434 MB libtorch copy: pytest keeps old tmp dirs
    return results


def _brief(stdout: str) -> str:
    """A report in one short line: files (kind, exports) and findings."""
    try:
        report = json.loads(stdout)
    except ValueError:
        return repr(stdout[:200])
    files = [(f["kind"], f["exports"], f["imports"]) for f in report["files"]][:4]
    findings = sorted((f["code"], f["symbol"]) for f in report["findings"])
    return f"files {files} {len(findings)} findings {findings[:3]}"


def _verdict(case: Case, result: dict, reference: dict | None, ref_path: str | None = None) -> str | None:
    """None when the case kept every guarantee; else what went wrong."""
    code = result["code"]
    everything = result["stdout"] + result["stderr"] + result["native"] + (result["escaped"] or "")
    if result.get("hang"):
        return "hang"
    if code not in (0, 1, 2) or result["escaped"] or "Traceback" in everything or "internal error" in everything:
        return f"crash (exit {code}): {everything[-600:]}"
    if result["seconds"] > CASE_SECONDS:
        return f"too slow: {result['seconds']:.1f} s"
    if result["native"]:
        return f"wrote to the terminal behind shimgen's back: {result['native'][:200]!r}"
    if code == 2:
        lines = result["stderr"].splitlines()
        if len(lines) != 1 or not lines[0].startswith("shimgen: error: ") or result["stdout"]:
            return f"exit 2 without exactly one error line: {result['stderr']!r} / stdout {result['stdout'][:200]!r}"
        if case.path not in lines[0] and Path(case.path).name not in lines[0]:
            return f"error line does not name the input: {lines[0]}"
        return None
    if case.expect == "bad":
        return f"accepted a corrupt file (exit {code}): {_brief(result['stdout'])}"
    if case.expect == "bad-or-same":
        # The same report, but for the file's name (each mutated copy has its own path).
        same = reference is not None and code == reference["code"] and \
            result["stdout"].replace(case.path, ref_path or "") == reference["stdout"]
        if not same:
            return (f"exit {code} with a report differing from the unmutated file's: {_brief(result['stdout'])} "
                    f"vs {_brief(reference['stdout']) if reference else None}")
    if case.expect == "no-crash" and case.variant == "check":
        try:
            json.loads(result["stdout"])
        except ValueError:
            return f"exit {code} with a malformed report: {result['stdout'][:200]!r}"
    return None


def test_every_malformed_input_is_refused_or_harmless(corpus, outcomes):
    cases, skipped = corpus
    failures, expected_bad = [], 0
    by_id = {case.id: case for case in cases.cases}
    for case in cases.cases:
        result = outcomes.get(case.id)
        if result is None:
            failures.append(f"{case.id}: no result")
            continue
        if case.expect == "reference":
            assert result["code"] in (0, 1), (case.id, result)
            continue
        expected_bad += case.expect == "bad"
        problem = _verdict(case, result, outcomes.get(case.ref) if case.ref else None,
                           by_id[case.ref].path if case.ref else None)
        if problem:
            failures.append(f"{case.id}: {problem}")
    measured = [outcomes[c.id] for c in cases.cases if c.id in outcomes and c.expect != "reference"]
    slowest = max(measured, key=lambda r: r["seconds"])
    STATS.update({
        "inputs": len(measured),
        "must_refuse": expected_bad,
        "refused": sum(1 for r in measured if r["code"] == 2),
        "crashes": sum(1 for f in failures if ": crash" in f),
        "hangs": sum(1 for f in failures if f.endswith(": hang")),
        "worst_seconds": slowest["seconds"],
        "worst_case": slowest["id"],
        "peak_rss_mb": max(r["maxrss_kb"] for r in measured) / 1024,
        "skipped": skipped,
        "groups": sorted({c.group for c in cases.cases}),
    })
    (Path(os.environ.get("TMPDIR", "/tmp")) / "shimgen-malformed-failures.txt").write_text("\n".join(failures) + "\n")
    assert not failures, f"{len(failures)} of {len(measured)} inputs broke a guarantee:\n" + "\n".join(failures[:40])
    assert STATS["refused"] >= expected_bad


def test_sample_as_real_processes_under_the_limits(corpus, outcomes):
    """One `python -m shimgen check-symbols` process per case: exit code, one stderr line naming
    the input, no traceback, within 10 s of CPU time and 1 GiB, and the same verdict as the in-process run."""
    cases, _ = corpus
    rng = random.Random(11)
    pool = [c for c in cases.cases if not c.patch and c.expect != "reference"]
    chosen = {c.id: c for c in pool if c.group in ("special", "zip")}  # all of these: cheap, and the riskiest
    others = [c for c in pool if c.id not in chosen]
    for case in rng.sample(others, min(40, len(others))):
        chosen[case.id] = case
    lock = threading.Lock()
    problems, worst = [], [0.0, ""]

    def run(case: Case) -> None:
        result = run_bounded([sys.executable, "-m", "shimgen", *case.as_json()["args"]], env=_env(), cwd=REPO)
        if result["hang"]:
            with lock:
                problems.append(f"{case.id}: hang (over {CASE_SECONDS} s of CPU time, or {HANG_WALL_SECONDS} s blocked)")
            return
        elapsed = result["seconds"]
        reference = next((c for c in cases.cases if c.id == case.ref), None)
        problem = _verdict(case, result, outcomes.get(case.ref) if case.ref else None, reference.path if reference else None)
        in_process = outcomes.get(case.id, {}).get("code")
        with lock:
            worst[:] = max(worst, [elapsed, case.id])
            if problem:
                problems.append(f"{case.id}: {problem}")
            elif result["code"] != in_process:
                problems.append(f"{case.id}: exit {result['code']} as a process, {in_process} in-process")

    queue = list(chosen.values())
    workers = [threading.Thread(target=lambda: [run(queue.pop()) for _ in iter(lambda: bool(queue), False)])
               for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    STATS["process_sample"] = len(chosen)
    STATS["process_worst_seconds"] = worst[0]
    assert not problems, "\n".join(problems)


def test_process_bound_is_cpu_time_not_wall_time():
    """The bound the process sample relies on: a child that spins is stopped by its CPU limit, while
    one that waits (as a healthy case does on a busy machine) is not, and its seconds are CPU seconds."""
    spinning = run_bounded([sys.executable, "-c", "while True: pass"], cpu_seconds=1)
    assert spinning["hang"] and spinning["code"] in (-9, -24), spinning
    waiting = run_bounded([sys.executable, "-c", "import time; time.sleep(2); print('done')"], cpu_seconds=1)
    assert not waiting["hang"] and waiting["code"] == 0 and waiting["stdout"] == "done\n", waiting
    assert waiting["seconds"] < 1.0, waiting


def test_summary(outcomes, request):
    """Writes the counts the closing note quotes (also printed at the end of the session)."""
    if "inputs" not in STATS:
        pytest.skip("the malformed-input test did not run")
    summary = Path(request.config.rootpath) / ".pytest_cache" / "shimgen-hardening-summary.json"  # read by conftest.py
    summary.parent.mkdir(exist_ok=True)
    summary.write_text(json.dumps(STATS, indent=2, default=str) + "\n")
    assert STATS["crashes"] == 0 and STATS["hangs"] == 0



FAKE_DRIVER = """
import json, os, signal, sys, time
cases = json.load(open(sys.argv[1])); out = open(sys.argv[2], "a", buffering=1)
for case in cases[int(sys.argv[3]):]:
    out.write(json.dumps({"begin": case["id"]}) + "\\n")
    if case["id"] == "hangs":
        signal.alarm(1); time.sleep(30)
    if case["id"] == "spins":  # the real driver's CPU-time alarm
        signal.setitimer(signal.ITIMER_PROF, 0.5)
        while True: pass
    if case["id"] == "aborts":
        os.abort()
    out.write(json.dumps({"id": case["id"], "code": 2, "stdout": "", "stderr": "shimgen: error: x\\n", "native": "",
                          "escaped": None, "seconds": 0.0, "maxrss_kb": 1}) + "\\n")
"""


def test_the_harness_itself_catches_a_hang_and_a_native_crash(tmp_path, monkeypatch):
    """The runner blames the case a dead driver was on, and carries on with the next ones."""
    fake = tmp_path / "fake_driver.py"
    fake.write_text(FAKE_DRIVER)
    monkeypatch.setattr(sys.modules[__name__], "DRIVER", fake)
    cases = [{"id": name, "args": []} for name in ("first", "hangs", "middle", "spins", "aborts", "last")]
    results: dict = {}
    _run_group(cases, results, tmp_path)
    assert results["hangs"]["hang"] is True and results["spins"]["hang"] is True and results["aborts"]["hang"] is False
    assert results["aborts"]["escaped"].startswith("driver died with")
    assert all(results[name]["code"] == 2 for name in ("first", "middle", "last"))
    case = Case("aborts", "/x", "bad", "g")
    assert _verdict(case, results["aborts"], None).startswith("crash")
    assert _verdict(Case("hangs", "/x", "bad", "g"), results["hangs"], None) == "hang"
