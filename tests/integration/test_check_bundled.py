"""SG010 on binaries that really contain each library: the real library's static archive (Debian's
lib*-dev) linked whole into a small extension-like binary, and torch's libraries. Each family must
be found there, alone; quiet on the library itself, under a grafted file name, and on the same link
with `-Wl,--exclude-libs,ALL` (the hint). Real wheels (slow, test_repair_wheels.py): lxml's etree
(libxml2, libxslt, zlib), python-lz4 (lz4), and quiet on markupsafe, which exports only PyInit_*.

Debian's archives are built as position-dependent (PIE) code where they read `stderr`: those link
into an executable with --export-dynamic instead of a shared library (a linked binary that exports
the library all the same; SG010 judges both). zlib, SQLite, brotli, lz4 and snappy link into a
shared library (-Bsymbolic, which these archives need); each link takes about a second. (zstd compiled from the zstandard sdist's single-file zstd.c is found the same way,
with 338 symbols; that 25-second compile is left to the sdist's own test, test_vendor_zstd.py.)
Families without a binary here (curl, pthreadpool/cpuinfo) are proven on real wheels: torch's
libtorch_cpu/libc10 (installed with the test extra) and tensorflow-cpu (benchmarks/repair.py).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.check import Policy, check_paths
from shimgen.check.libraries import families

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

LIB = Path("/usr/lib/x86_64-linux-gnu")
POLICY = Policy.from_options("p_")
STUB = "int PyInit_ext(void) { return 0; }\n"
MAIN = "int main(void) { return 0; }\n"

# (family, how it links, archives, the Debian package that ships them)
ARCHIVES = [
    ("zlib", "shared", ["libz.a"], "zlib1g-dev"),
    ("SQLite", "shared", ["libsqlite3.a"], "libsqlite3-dev"),
    ("brotli", "shared", ["libbrotlienc.a", "libbrotlidec.a", "libbrotlicommon.a"], "libbrotli-dev"),
    ("lz4", "shared", ["liblz4.a"], "liblz4-dev"),
    ("snappy", "shared", ["libsnappy.a"], "libsnappy-dev"),
    ("libxml2", "exe", ["libxml2.a"], "libxml2-dev"),
    ("libpng", "exe", ["libpng16.a"], "libpng-dev"),
    ("libjpeg (libjpeg-turbo)", "exe", ["libjpeg.a"], "libjpeg62-turbo-dev"),
    ("libtiff", "exe", ["libtiff.a"], "libtiff-dev"),
    ("zstd", "exe", ["libzstd.a"], "libzstd-dev"),
    ("BLAS/LAPACK", "exe", ["libblas.a"], "libblas-dev"),
    ("re2", "exe", ["libre2.a"], "libre2-dev"),
    ("protobuf", "exe", ["libprotobuf.a"], "libprotobuf-dev"),
    ("OpenSSL/BoringSSL (libcrypto, libssl)", "shared", ["libcrypto.a"], "libssl-dev"),
    ("LLVM", "shared", ["/usr/lib/llvm-14/lib/libLLVMSupport.a"], "llvm-14-dev"),
]


def link(tmp: Path, how: str, archives: list[Path], *, hide: bool = False) -> Path:
    """The archives linked whole into ext.so (shared) or ext (an executable exporting everything)."""
    (tmp / "stub.c").write_text(STUB if how == "shared" else MAIN)
    whole = ["-Wl,--whole-archive", *map(str, archives), "-Wl,--no-whole-archive"]
    hidden = ["-Wl,--exclude-libs,ALL"] if hide else []
    if how == "shared":
        out = tmp / "ext.so"
        command = ["g++", "-shared", "-fPIC", "-Wl,-Bsymbolic", "-o", str(out), "stub.c", *whole, *hidden]
    else:
        # Never run: the archive's own dependencies (libm, libz, ...) may stay unresolved.
        out = tmp / "ext"
        command = ["g++", "-rdynamic", "-o", str(out), "stub.c", *whole, *hidden,
                   "-Wl,--unresolved-symbols=ignore-all"]
    subprocess.run(command, check=True, capture_output=True, cwd=tmp)
    return out


def sg010(path: Path) -> list[str]:
    """The family of each SG010 finding on ``path``."""
    names = [f.name for f in families()]
    found = []
    for finding in check_paths([path], POLICY).findings:
        if finding.code == "SG010":
            found.append(next(n for n in names if f"symbols of {n} (" in finding.message))
    return found


@pytest.mark.parametrize(("family", "how", "archives", "package"), ARCHIVES)
def test_family_is_found_where_the_real_library_is_linked_in(tmp_path, family, how, archives, package):
    paths = [Path(a) if a.startswith("/") else LIB / a for a in archives]
    missing = [p for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"{missing[0]} absent (apt-get install -y {package})")
    assert family in {f.name for f in families()}
    assert sg010(link(tmp_path, how, paths)) == [family]


@pytest.mark.parametrize(("how", "archive"), [("shared", "libz.a"), ("exe", "libpng16.a")])
def test_the_hint_makes_the_finding_go_away(tmp_path, how, archive):
    if not (LIB / archive).exists():
        pytest.skip(f"{LIB / archive} absent")
    assert sg010(link(tmp_path, how, [LIB / archive], hide=True)) == []


OWN = 'const char *zlibVersion(void) { return "own"; }\nconst char *ext_version(void) { return zlibVersion(); }\n'
CALLER = '#include <stdio.h>\nconst char *ext_version(void);\nint main(void) { puts(ext_version()); return 0; }\n'


@pytest.mark.skipif(not (LIB / "libz.so.1").exists() or shutil.which("gcc") is None, reason="needs gcc, libz.so.1")
def test_a_symbolic_binary_keeps_its_own_calls(tmp_path):
    """-Bsymbolic (pymupdf's libmupdf, every Debian-archive link above) binds a library's calls to
    its own definitions at link time: with the system's libz preloaded, a library exporting its own
    zlibVersion still calls its own (prints "own"); linked without it, the same call binds to the
    preloaded libz (prints the system's version). SG010 says which case it is."""
    (tmp_path / "own.c").write_text(OWN)
    (tmp_path / "main.c").write_text(CALLER)
    printed = {}
    for mode, flags in (("symbolic", ["-Wl,-Bsymbolic"]), ("plain", [])):
        library = tmp_path / mode / "libown.so"
        library.parent.mkdir()
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(library), str(tmp_path / "own.c"), *flags], check=True)
        program = tmp_path / mode / "main"
        subprocess.run(["gcc", "-o", str(program), str(tmp_path / "main.c"), "-L", str(library.parent), "-lown",
                        f"-Wl,-rpath,{library.parent}"], check=True)
        run = subprocess.run([str(program)], env={"LD_PRELOAD": str(LIB / "libz.so.1")}, capture_output=True,
                             text=True, check=True)
        printed[mode] = run.stdout.strip()
    assert printed["symbolic"] == "own" and printed["plain"] not in ("own", ""), printed
    # The same property on a real bundled zlib (Debian's libz.a linked whole, -Bsymbolic): SG010 still
    # reports the export, and says the binary's own calls stay in its copy.
    if (LIB / "libz.a").exists():
        (finding,) = [f for f in check_paths([link(tmp_path, "shared", [LIB / "libz.a"])], POLICY).findings
                      if f.code == "SG010"]
        assert "linked -Bsymbolic, so its own calls stay in its copy" in finding.message
    if (LIB / "libpng16.a").exists():
        (tmp_path / "exe").mkdir()
        exe = link(tmp_path / "exe", "exe", [LIB / "libpng16.a"])
        assert all("-Bsymbolic" not in f.message for f in check_paths([exe], POLICY).findings)


@pytest.mark.parametrize("library", [
    "libz.so.1", "libxml2.so.2", "libxslt.so.1", "libpng16.so.16", "libjpeg.so.62", "libtiff.so.6",
    "libsqlite3.so.0", "libzstd.so.1", "liblz4.so.1", "libbrotlienc.so.1", "libcrypto.so.3", "libssl.so.3",
    "libsnappy.so.1", "libcurl.so.4", "libcurl-gnutls.so.4", "libprotobuf.so.32", "libre2.so.9",
    "libabsl_synchronization.so.20220623", "libblas.so.3",
])
def test_quiet_on_the_library_itself(library):
    path = LIB / library
    if not path.exists():
        pytest.skip(f"{path} not installed here")
    assert sg010(path) == []


def test_quiet_under_a_grafted_file_name(tmp_path):
    """auditwheel's copy of libz, renamed with a hash and no SONAME of the original name."""
    if not (LIB / "libz.a").exists():
        pytest.skip("libz.a absent")
    built = link(tmp_path, "shared", [LIB / "libz.a"])
    grafted = tmp_path / "libz-4a5b6c7d.so.1.3.1"
    built.rename(grafted)
    assert sg010(grafted) == []


def test_torch_libraries_export_pthreadpool_cpuinfo_and_blas():
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    lib = Path(spec.origin).parent / "lib"
    assert sg010(lib / "libtorch_cpu.so") == ["pthreadpool/cpuinfo", "BLAS/LAPACK"]
    assert sg010(lib / "libc10.so") == ["pthreadpool/cpuinfo"]

