"""`shimgen repair` on real wheels nobody here built, proven by running them.

lxml 6.2.0 (hide): its etree links libxml2 2.14, libxslt and zlib statically and exports them. With
Debian's libxml2 2.9 preloaded, the original binds hundreds of etree's own calls into the system's
library (LD_DEBUG=bindings; 826 measured); the repaired wheel binds none, imports, and passes lxml's
own test suite from its sdist exactly as the original does (same tests run, same failures).

pillow 13.0.0 (prefix): auditwheel grafted libjpeg-turbo as pillow.libs/libjpeg-<hash>.so.62, used by
both PIL/_imaging and the grafted libtiff. With Debian's libjpeg.so.62 preloaded, the original's JPEG
calls from those binaries land in the system's copy; after `--family libjpeg --prefix`, every one
lands in the bundled copy, and a JPEG and a JPEG-compressed TIFF round-trip.

python-lz4 4.4.5 exports the lz4 it links (SG010); repaired, its calls stay inside with the system's
liblz4 preloaded. markupsafe, which exports only PyInit_*, is quiet and has nothing to hide.

Artefacts are fetched with `pip download` into pytest's cache; offline without a cached copy, skip.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from shimgen.cli import main

pytestmark = pytest.mark.slow

LXML = "lxml==6.2.0"
PILLOW = "pillow==13.0.0"
SYSTEM = Path("/usr/lib/x86_64-linux-gnu")
BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")

LXML_RUNNER = """
import importlib, pkgutil, sys, unittest
import lxml.tests as tests
only = sys.argv[1:]
suite = unittest.TestSuite()
for info in pkgutil.iter_modules(tests.__path__):
    if info.name.startswith("test_") and (not only or info.name in only):
        module = importlib.import_module("lxml.tests." + info.name)
        if hasattr(module, "test_suite"):
            suite.addTest(module.test_suite())
with open(__import__("os").devnull, "w") as sink:
    result = unittest.TextTestRunner(stream=sink, verbosity=0).run(suite)
print("RAN", result.testsRun, "SKIPPED", len(result.skipped))
for test, _ in result.failures + result.errors:
    print("BAD", test.id())
"""

PIL_SMOKE = """
import io
from PIL import Image
im = Image.linear_gradient("L").resize((64, 48)).convert("RGB")
for fmt, extra in (("JPEG", {"quality": 90}), ("TIFF", {"compression": "jpeg"})):
    buf = io.BytesIO(); im.save(buf, fmt, **extra); buf.seek(0)
    back = Image.open(buf); back.load()
    assert back.size == (64, 48), back.size
    assert abs(back.convert("L").getpixel((32, 24)) - im.convert("L").getpixel((32, 24))) < 8
print("ok")
"""


def fetch(pytestconfig, tmp_path_factory, requirement: str, *, sdist: bool = False) -> Path:
    store = getattr(pytestconfig, "cache", None)
    cache = Path(store.mkdir("shimgen-repair-wheels")) if store is not None else tmp_path_factory.mktemp("dl")
    stem = requirement.replace("==", "-")
    glob = f"{stem}.tar.gz" if sdist else f"{stem}-cp311-*manylinux*x86_64*.whl"
    found = sorted(cache.glob(glob))
    if not found:
        kind = ["--no-binary", ":all:", "--no-build-isolation"] if sdist else ["--only-binary", ":all:"]
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", *kind,
                                 "--disable-pip-version-check", "-d", str(cache), requirement],
                                capture_output=True, text=True, timeout=300, check=False)
        found = sorted(cache.glob(glob))
        if result.returncode != 0 or not found:
            pytest.skip(f"cannot download {requirement} (offline?): {result.stderr.strip()[-300:]}")
    return found[-1]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def install(wheel: Path, target: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                    "--disable-pip-version-check", "--target", str(target), str(wheel)], check=True, timeout=300)


def run_python(site: Path, code: str, *args: str, preload: Path | None = None, bindings: bool = False,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}
    if preload is not None:
        env["LD_PRELOAD"] = str(preload)
    if bindings:
        env["LD_DEBUG"] = "bindings"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=cwd or site, timeout=600, check=False)


def bindings(stderr: str, source: str, target: str) -> list[str]:
    """Symbols the dynamic linker bound from a file whose path contains ``source`` to one whose
    path contains ``target``."""
    return [sym for src, dst, sym in BINDING.findall(stderr) if source in src and target in dst]


def check_record(wheel: Path) -> None:
    """Every member's RECORD row carries its real sha256 and size, and every member has a row."""
    with zipfile.ZipFile(wheel) as archive:
        record_name = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
        rows = {row[0]: row[1:] for row in csv.reader(io.StringIO(archive.read(record_name).decode()))}
        for name in archive.namelist():
            if name == record_name or name.endswith("/"):
                continue
            data = archive.read(name)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert rows[name] == [want, str(len(data))], name


@pytest.fixture(scope="module")
def lxml_pair(pytestconfig, tmp_path_factory):
    """(original site dir, repaired site dir, repaired wheel, original wheel), each with the sdist's
    tests and doc/ laid out as lxml's tests expect (src/lxml/tests, ../../doc)."""
    wheel = fetch(pytestconfig, tmp_path_factory, LXML)
    sdist = fetch(pytestconfig, tmp_path_factory, LXML, sdist=True)
    root = tmp_path_factory.mktemp("lxml")
    before = digest(wheel)
    assert main(["repair", str(wheel), "-o", str(root / "out")]) == 0
    assert digest(wheel) == before, "the input wheel was modified"
    repaired = root / "out" / wheel.name
    sites = []
    for name, source in (("orig", wheel), ("fixed", repaired)):
        site = root / name / "src"
        install(source, site)
        with tarfile.open(sdist) as archive:
            top = archive.getnames()[0].split("/")[0]
            wanted = [m for m in archive.getmembers()
                      if m.name.startswith((f"{top}/src/lxml/tests/", f"{top}/doc/"))]
            archive.extractall(root / name / "x", members=wanted, filter="data")
        (root / name / "x" / top / "src" / "lxml" / "tests").rename(site / "lxml" / "tests")
        (root / name / "x" / top / "doc").rename(root / name / "doc")
        sites.append(site)
    return sites[0], sites[1], repaired, wheel


@pytest.mark.skipif(not (SYSTEM / "libxml2.so.2").exists(), reason="Debian's libxml2 is not installed "
                    "(apt-get install -y libxml2)")
def test_lxml_repaired_binds_none_of_its_calls_into_a_preloaded_system_libxml2(lxml_pair):
    original, repaired, wheel, _ = lxml_pair
    code = "from lxml import etree; print(etree.tostring(etree.fromstring('<a><b/></a>')).decode())"
    counts = {}
    for name, site in (("original", original), ("repaired", repaired)):
        for library in ("libxml2.so.2", "libz.so.1"):
            result = run_python(site, code, preload=SYSTEM / library, bindings=True)
            assert result.returncode == 0 and "<a><b/></a>" in result.stdout, result.stderr[-2000:]
            counts[name, library] = len(bindings(result.stderr, "lxml/etree", str(SYSTEM / library)))
    # The negative control: the original really does bind into the system copies.
    assert counts["original", "libxml2.so.2"] > 100 and counts["original", "libz.so.1"] > 0, counts
    assert counts["repaired", "libxml2.so.2"] == 0 and counts["repaired", "libz.so.1"] == 0, counts
    check_record(wheel)


def test_lxml_repaired_wheel_passes_its_own_test_suite_as_the_original(lxml_pair, tmp_path):
    original, repaired, wheel, source = lxml_pair
    outcomes = []
    for site in (original, repaired):
        result = run_python(site, LXML_RUNNER)
        assert result.returncode == 0 and "RAN" in result.stdout, result.stderr[-3000:]
        outcomes.append(result.stdout)
    ran = int(re.search(r"RAN (\d+)", outcomes[0]).group(1))
    assert ran > 1500, outcomes[0]  # the whole suite ran, not an import error's handful
    assert outcomes[1] == outcomes[0], "the repaired wheel's test results differ from the original's"
    # The finding the repair addressed is gone; the original still has it.
    report = tmp_path / "r.json"
    assert main(["check-symbols", "--prefix", "p_", "--format", "json", "-o", str(report), str(wheel)]) == 0
    assert main(["check-symbols", "--prefix", "p_", "--format", "json", "-o", str(report), str(source)]) == 1
    etree = [f["message"] for f in json.loads(report.read_text())["findings"]
             if f["code"] == "SG010" and "lxml/etree." in (f.get("member") or "")]
    assert sorted(m.split(" symbols of ")[1].split(" (")[0] for m in etree) == ["libxml2", "libxslt", "zlib"]


@pytest.mark.skipif(not (SYSTEM / "libjpeg.so.62").exists(), reason="Debian's libjpeg62-turbo is not installed")
def test_pillow_prefix_mode_keeps_every_jpeg_call_in_the_grafted_copy(pytestconfig, tmp_path_factory, tmp_path):
    wheel = fetch(pytestconfig, tmp_path_factory, PILLOW)
    out = tmp_path / "out"
    assert main(["repair", str(wheel), "-o", str(out), "--family", "libjpeg", "--prefix", "pilsg_"]) == 0
    repaired = out / wheel.name
    check_record(repaired)
    counts = {}
    for name, source in (("original", wheel), ("repaired", repaired)):
        site = tmp_path / name
        install(source, site)
        result = run_python(site, PIL_SMOKE, preload=SYSTEM / "libjpeg.so.62", bindings=True)
        assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]
        from_pillow = [(src, dst) for src, dst, _ in BINDING.findall(result.stderr)
                       if ("/PIL/" in src or "/pillow.libs/" in src)]
        counts[name] = (sum(str(SYSTEM / "libjpeg.so.62") in dst for _, dst in from_pillow),
                        sum("pillow.libs/libjpeg-" in dst for _, dst in from_pillow))
        sources = {Path(src).name.split("-")[0].split(".")[0] for src, dst in from_pillow if "libjpeg-" in dst}
        if name == "repaired":
            # Both consumers of the grafted library reach it: the extension module and libtiff.
            assert {"_imaging", "libtiff"} <= sources, sources
    assert counts["original"][0] > 0, counts  # the negative control: the unrepaired wheel binds the system's
    assert counts["repaired"][0] == 0 and counts["repaired"][1] > counts["original"][1], counts



def test_a_wheel_exporting_only_pyinit_is_quiet(pytestconfig, tmp_path_factory, tmp_path, capsys):
    wheel = fetch(pytestconfig, tmp_path_factory, "markupsafe==3.0.3")
    report = tmp_path / "r.json"
    assert main(["check-symbols", "--prefix", "p_", "--format", "json", "-o", str(report), str(wheel)]) == 0
    capsys.readouterr()
    assert main(["repair", str(wheel), "--plan", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["binaries"] and all(b["hide"] == [] and b["bundled_families"] == [] for b in plan["binaries"])


@pytest.mark.skipif(not (SYSTEM / "liblz4.so.1").exists(), reason="Debian's liblz4 is not installed")
def test_python_lz4_exports_lz4_and_repair_keeps_its_calls_inside(pytestconfig, tmp_path_factory, tmp_path):
    """python-lz4 4.4.5 links lz4 into each extension module and exports it (111 LZ4 names in
    lz4/frame/_frame.so): with the system's liblz4 preloaded its calls go there, until repaired."""
    wheel = fetch(pytestconfig, tmp_path_factory, "lz4==4.4.5")
    report = tmp_path / "r.json"
    assert main(["check-symbols", "--prefix", "p_", "--format", "json", "-o", str(report), str(wheel)]) == 1
    assert "SG010" in report.read_text()
    assert main(["repair", str(wheel), "-o", str(tmp_path / "out")]) == 0
    code = ("import lz4.frame, lz4.block; d = b'abc' * 1000; "
            "assert lz4.frame.decompress(lz4.frame.compress(d)) == d; "
            "assert lz4.block.decompress(lz4.block.compress(d)) == d; print('ok')")
    counts = {}
    for name, source in (("original", wheel), ("repaired", tmp_path / "out" / wheel.name)):
        site = tmp_path / name
        install(source, site)
        result = run_python(site, code, preload=SYSTEM / "liblz4.so.1", bindings=True)
        assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]
        counts[name] = len(bindings(result.stderr, "/lz4/", str(SYSTEM / "liblz4.so.1")))
    assert counts["original"] > 0 and counts["repaired"] == 0, counts


ZSTD_VERSION = "import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).ZSTD_versionNumber())"


@pytest.mark.skipif(not (SYSTEM / "libzstd.so.1").exists(), reason="Debian's libzstd is not installed")
def test_zstandard_cffi_backend_passes_its_own_suite_with_the_systems_libzstd_preloaded(
        pytestconfig, tmp_path_factory, tmp_path):
    """zstandard 0.25.0's cffi backend links zstd 1.5.7 into `_cffi` and exports it (SG010). With
    Debian's libzstd (1.5.4) preloaded, the original binds its ZSTD_* calls there and its own tests
    that pin compressed bytes fail (4 of 224 measured); the repaired wheel binds none there and its
    suite passes as the original's does without the preload."""
    wheel = fetch(pytestconfig, tmp_path_factory, "zstandard==0.25.0")
    sdist = fetch(pytestconfig, tmp_path_factory, "zstandard==0.25.0", sdist=True)
    cffi = fetch(pytestconfig, tmp_path_factory, "cffi==2.1.1")  # the cffi backend needs _cffi_backend
    assert main(["repair", str(wheel), "-o", str(tmp_path / "out")]) == 0
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        archive.extractall(tmp_path / "x", members=[m for m in archive.getmembers()
                                                    if m.name.startswith(f"{top}/tests/")], filter="data")
    tests = tmp_path / "x" / top
    system = SYSTEM / "libzstd.so.1"
    suite = "import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests']))"
    check = ("import zstandard as z; assert z.backend == 'cffi', z.backend; d = b'shimgen' * 9999; "
             "assert z.ZstdDecompressor().decompress(z.ZstdCompressor().compress(d)) == d; print('ok')")
    os.environ["PYTHON_ZSTANDARD_IMPORT_POLICY"] = "cffi"  # run_python passes os.environ on
    try:
        outcome, counts = {}, {}
        for name, source in (("original", wheel), ("repaired", tmp_path / "out" / wheel.name)):
            site = tmp_path / name
            install(source, site)
            install(cffi, site)
            result = run_python(site, check, preload=system, bindings=True)
            assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]
            counts[name] = len(bindings(result.stderr, "zstandard/_cffi", str(system)))
            for preload in (None, system):
                result = run_python(site, suite, preload=preload, cwd=tests)
                outcome[name, preload] = re.findall(r"(\d+) (passed|failed|error)", result.stdout)
        bundled = run_python(tmp_path / "original", ZSTD_VERSION, str(next((tmp_path / "original").glob(
            "zstandard/_cffi*.so")))).stdout
        debian = run_python(tmp_path, ZSTD_VERSION, str(system)).stdout
    finally:
        del os.environ["PYTHON_ZSTANDARD_IMPORT_POLICY"]
    # The negative control: the unrepaired module binds its zstd calls into the system's library.
    assert counts["original"] > 100 and counts["repaired"] == 0, counts
    clean = outcome["original", None]
    assert clean and all(kind == "passed" for _, kind in clean) and int(clean[0][0]) > 200, outcome
    assert outcome["repaired", None] == clean and outcome["repaired", system] == clean, outcome
    if bundled != debian:  # two versions: the original's pinned-output tests see the other one's bytes
        assert outcome["original", system] != clean, outcome
