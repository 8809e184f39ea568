"""`shimgen repair` on libraries built here with gcc, proven by running them.

libbundle.so carries a private helper (`helper`, returning 1) that a "system" library also defines
(returning 2), plus `shared_fn`, which libuser.so (another binary of the set) imports, and the entry
point `PyInit_bundle`. Preloading the system library interposes `helper` into libbundle's own
calls: the unrepaired set prints 2. After `repair` (hide), libbundle binds its own copy (1), while
libuser still reaches `shared_fn` and the entry point stays exported. `--keep helper` leaves the
interposition in place (the negative control of the edit itself).

Prefix mode: libprov.so exports versioned `zz_*` names (a version script), libcons.so imports them;
a preloaded copy of `zz_value` captures libcons's call until `--prefix my_ --pattern 'zz_*'` renames
both sides, after which the call lands in libprov (and the symbol versions still resolve).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from shimgen.binary.load import load_paths
from shimgen.cli import main

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

BUNDLE = """
int helper(void) { return 1; }
int shared_fn(void) { return 7; }
int api(void) { return helper(); }
int PyInit_bundle(void) { return api(); }
"""
USER = "int shared_fn(void);\nint user_fn(void) { return shared_fn() * 10; }\n"
SYS = "int helper(void) { return 2; }\nint zz_value(void) { return 99; }\n"
MAIN = """
#include <stdio.h>
int PyInit_bundle(void); int user_fn(void);
int main(void) { printf("%d %d\\n", PyInit_bundle(), user_fn()); return 0; }
"""
PROV = "int zz_value(void) { return 5; }\nint zz_other(void) { return 6; }\n"
PROV_MAP = "VERS_1 { global: zz_*; local: *; };\n"
CONS = "int zz_value(void);\nint cons_fn(void) { return zz_value(); }\n"
CONS_MAIN = '#include <stdio.h>\nint cons_fn(void);\nint main(void) { printf("%d\\n", cons_fn()); return 0; }\n'


def sh(*args, cwd: Path) -> None:
    subprocess.run([*map(str, args)], check=True, capture_output=True, cwd=cwd)


@pytest.fixture
def built(tmp_path: Path) -> dict[str, Path]:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("bundle.c", BUNDLE), ("user.c", USER), ("sys.c", SYS), ("main.c", MAIN), ("prov.c", PROV),
                       ("prov.map", PROV_MAP), ("cons.c", CONS), ("cmain.c", CONS_MAIN)):
        (src / name).write_text(text)
    lib = tmp_path / "set"
    lib.mkdir()
    sh("gcc", "-shared", "-fPIC", "-O1", "-fno-inline", "-o", lib / "libbundle.so", "bundle.c", cwd=src)
    sh("gcc", "-shared", "-fPIC", "-o", lib / "libuser.so", "user.c", "-L", lib, "-lbundle", cwd=src)
    sh("gcc", "-shared", "-fPIC", "-o", tmp_path / "libsys.so", "sys.c", cwd=src)
    sh("gcc", "-shared", "-fPIC", "-Wl,--version-script=prov.map", "-o", lib / "libprov.so", "prov.c", cwd=src)
    sh("gcc", "-shared", "-fPIC", "-o", lib / "libcons.so", "cons.c", "-L", lib, "-lprov", cwd=src)
    # The programs belong to the set (their imports are what keeps user_fn and cons_fn exported) and
    # find the libraries through LD_LIBRARY_PATH, so one build runs either copy of the set.
    sh("gcc", "-o", lib / "main", "main.c", "-L", lib, "-lbundle", "-luser", cwd=src)
    sh("gcc", "-o", lib / "cmain", "cmain.c", "-L", lib, "-lcons", "-lprov", cwd=src)
    return {"set": lib, "sys": tmp_path / "libsys.so", "main": lib / "main", "cmain": lib / "cmain"}


def run(program: str, libs: Path, preload: Path) -> list[str]:
    env = {**os.environ, "LD_LIBRARY_PATH": str(libs), "LD_PRELOAD": str(preload)}
    return subprocess.run([str(libs / program)], capture_output=True, text=True, check=True, env=env).stdout.split()


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_hide_makes_the_library_bind_its_own_copy(built, tmp_path, capsys):
    before = tree_digest(built["set"])
    assert run("main", built["set"], built["sys"]) == ["2", "70"]  # interposed: the hazard
    out = tmp_path / "out"
    assert main(["repair", *(str(built["set"] / n) for n in ("libbundle.so", "libuser.so", "main")), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "keep shared_fn  (imported by" in text and "libuser.so" in text
    assert tree_digest(built["set"]) == before, "an input was modified"
    assert run("main", out, built["sys"]) == ["1", "70"]
    (bundle,) = load_paths([out / "libbundle.so"])
    assert "PyInit_bundle" in bundle.exports and "shared_fn" in bundle.exports
    assert "helper" not in bundle.exports and "api" not in bundle.exports
    assert os.access(out / "libbundle.so", os.X_OK)


def test_keep_leaves_an_export_interposable(built, tmp_path):
    out = tmp_path / "out"
    assert main(["repair", str(built["set"]), "-o", str(out), "--keep", "help*"]) == 0
    assert run("main", out / "set", built["sys"]) == ["2", "70"]
    assert tree_digest(out / "set").keys() == tree_digest(built["set"]).keys()  # the directory copied whole


def test_a_directory_is_one_set(built, tmp_path):
    (built["set"] / "libbundle.so.1").symlink_to("libbundle.so")
    (built["set"] / "outside.so").symlink_to(built["sys"])  # absolute: left out of the copy
    out = tmp_path / "out"
    assert main(["repair", str(built["set"]), "-o", str(out)]) == 0
    assert run("main", out / "set", built["sys"]) == ["1", "70"]
    assert os.readlink(out / "set" / "libbundle.so.1") == "libbundle.so"
    assert not (out / "set" / "outside.so").exists()
    # Repairing twice replaces the earlier output atomically, and changes nothing more.
    first = tree_digest(out / "set")
    assert main(["repair", str(built["set"]), "-o", str(out)]) == 0
    assert tree_digest(out / "set") == first


def test_prefix_mode_renames_provider_and_consumer_with_versions_kept(built, tmp_path):
    assert run("cmain", built["set"], built["sys"]) == ["99"]  # the preloaded copy wins
    out = tmp_path / "out"
    assert main(["repair", *(str(built["set"] / n) for n in ("libprov.so", "libcons.so", "cmain")), "-o", str(out),
                 "--prefix", "my_", "--pattern", "zz_*"]) == 0
    assert run("cmain", out, built["sys"]) == ["5"]
    prov, cons = load_paths([out / "libprov.so", out / "libcons.so"])
    assert {"my_zz_value", "my_zz_other"} <= set(prov.exports) and "zz_value" not in prov.exports
    assert "my_zz_value" in cons.imports and "zz_value" not in cons.imports
    versions = subprocess.run(["readelf", "--dyn-syms", "-W", str(out / "libcons.so")], capture_output=True,
                              text=True, check=True).stdout
    assert "my_zz_value@VERS_1" in versions


def test_plan_writes_nothing_and_speaks_json(built, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["repair", str(built["set"]), "-o", str(out), "--plan", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert not out.exists()
    bundle = next(b for b in plan["binaries"] if b["binary"].endswith("libbundle.so"))
    assert bundle["hide"] == ["api", "helper"]
    assert bundle["kept_for_set"][0]["symbol"] == "shared_fn"
    assert plan["schema"] == "shimgen-repair-plan/1" and plan["written"] == []


def test_a_failed_verification_writes_nothing(built, tmp_path, monkeypatch, capsys):
    import shimgen.repair.run as run_module

    monkeypatch.setattr(run_module, "hide_in_place", lambda *a, **k: 0)  # an edit that silently does nothing
    out = tmp_path / "out"
    assert main(["repair", str(built["set"]), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("shimgen: error: the repaired set fails verification")
    assert list(out.iterdir()) == []


def make_wheel(path: Path, files: dict[str, bytes]) -> None:
    import base64

    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
            h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append(f"{name},sha256={h},{len(data)}")
        archive.writestr("demo-1.0.dist-info/RECORD", "\n".join([*rows, "demo-1.0.dist-info/RECORD,,"]) + "\n")


def test_a_wheel_keeps_its_name_and_gets_a_true_record(built, tmp_path):
    wheel = tmp_path / "demo-1.0-cp311-cp311-linux_x86_64.whl"
    make_wheel(wheel, {"demo/libbundle.so": (built["set"] / "libbundle.so").read_bytes(),
                       "demo/__init__.py": b"x = 1\n", "demo-1.0.dist-info/METADATA": b"Name: demo\n"})
    out = tmp_path / "out"
    assert main(["repair", str(wheel), "-o", str(out)]) == 0
    repaired = out / wheel.name
    with zipfile.ZipFile(repaired) as archive:
        record = archive.read("demo-1.0.dist-info/RECORD").decode().splitlines()
        assert archive.read("demo/__init__.py") == b"x = 1\n"
        so = archive.read("demo/libbundle.so")
    assert so != (built["set"] / "libbundle.so").read_bytes()
    import base64

    want = base64.urlsafe_b64encode(hashlib.sha256(so).digest()).rstrip(b"=").decode()
    assert f"demo/libbundle.so,sha256={want},{len(so)}" in record
    assert record[-1] == "demo-1.0.dist-info/RECORD,,"


@pytest.mark.parametrize(("setup", "says"), [
    (lambda d: (d / "notes.txt").write_text("hello"), "neither an ELF file"),
    (lambda d: (d / "bad.whl").write_bytes(b"PK\x03\x04broken"), "corrupt zip"),
    (lambda d: d / "missing.so", "no such file"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, setup, says):
    made = setup(tmp_path)
    path = made if isinstance(made, Path) else next(p for p in tmp_path.iterdir() if p.is_file())
    assert main(["repair", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("shimgen: error:") and says in err[0], err


def test_usage_errors(built, tmp_path, capsys):
    lib = str(built["set"] / "libbundle.so")
    assert main(["repair", lib]) == 2  # no -o and no --plan
    assert main(["repair", lib, "-o", str(tmp_path / "o"), "--mode", "hide", "--prefix", "p_"]) == 2
    assert main(["repair", lib, "-o", str(tmp_path / "o"), "--prefix", "p_"]) == 2  # no pattern
    assert main(["repair", lib, "-o", str(tmp_path / "o"), "--family", "nosuchlib", "--prefix", "p_"]) == 2
    assert main(["repair", lib, "-o", str(built["set"])]) == 2  # would overwrite the input
    assert all(line.startswith(("shimgen: error:", "usage:")) for line in capsys.readouterr().err.splitlines())


def test_a_refused_output_inside_the_input_creates_nothing(built):
    """-o inside the input directory is refused, and the refusal leaves no new directory behind
    (it created d/out, and d/sub for -o d/sub/.., before refusing)."""
    before = sorted(p.relative_to(built["set"]) for p in built["set"].rglob("*"))
    for output in (built["set"] / "out", built["set"] / "sub" / ".."):
        assert main(["repair", str(built["set"]), "-o", str(output)]) == 2
    assert sorted(p.relative_to(built["set"]) for p in built["set"].rglob("*")) == before


def test_the_configs_allow_globs_are_kept_like_keep(built, tmp_path):
    config = tmp_path / "shimgen.toml"
    config.write_text('prefix = "p_"\nallow = ["help*"]\nsymbols = ["aoti_torch_foo"]\n')
    out = tmp_path / "out"
    assert main(["repair", str(built["set"]), "-o", str(out), "-c", str(config)]) == 0
    assert run("main", out / "set", built["sys"]) == ["2", "70"]  # helper kept visible, so interposed
    (bundle,) = load_paths([out / "set" / "libbundle.so"])
    assert "helper" in bundle.exports and "api" not in bundle.exports
