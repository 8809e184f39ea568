"""check-symbols on real ELF binaries built here with gcc: every rule, containers, bad input,
the CLI's exit codes and outputs, and the fast reader proven equal to LIEF on all of them."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from shimgen.binary.elf import read_elf
from shimgen.binary.lief_reader import read_elf_lief
from shimgen.binary.load import Limits, load_paths
from shimgen.check import Policy, check_paths
from shimgen.cli import main
from shimgen.errors import InputError

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

P = "executorch_"
EXPORT = '__attribute__((visibility("default")))'
ROOT = Path(__file__).resolve().parents[2]

SOURCES = {
    # A clean shim library: two prefixed shims, a prefixed thread-local, a static helper.
    "good": f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n"
            f"{EXPORT} __thread int {P}caller_stream;\nstatic int helper(void){{return 3;}}\n"
            f"int use_helper(void){{return helper();}}\n",
    # Compiled without the define: one shim leaks under its plain name.
    "leak": f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int aoti_torch_b(void){{return 2;}}\n",
    # Kept by the linker but hidden (no export macro on b): the static table shows it (SG003).
    "hidden": f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\nint {P}aoti_torch_b(void){{return 2;}}\n",
    # A consumer compiled without the define: imports the plain name (SG004), and one prefixed shim
    # no provider has (SG008).
    "consumer": f"int aoti_torch_a(void);\nint {P}aoti_torch_b(void);\nint {P}aoti_torch_zz(void);\n"
                f"{EXPORT} int run(void){{return aoti_torch_a() + {P}aoti_torch_b() + {P}aoti_torch_zz();}}\n",
    "double": f"{EXPORT} int {P}{P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n",
    "foreign": f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n"
               f"{EXPORT} int helper_leak(void){{return 3;}}\n",
    # A second library defining a shim and the thread-local again (SG007).
    "dup": f"{EXPORT} int {P}aoti_torch_a(void){{return 9;}}\n{EXPORT} __thread int {P}caller_stream;\n",
    # Archive members: the library is linked from the archive without whole-archive, so b.o is dropped.
    "arch_a": f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n",
    "arch_b": f"{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n",
    "arch_main": f"int {P}aoti_torch_a(void);\n{EXPORT} int entry(void){{return {P}aoti_torch_a();}}\n",
}


def cc(*args: str) -> None:
    subprocess.run(["gcc", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("elf")
    out: dict[str, Path] = {}
    for name, text in SOURCES.items():
        (d / f"{name}.c").write_text(text)
    for name in ("good", "leak", "hidden", "consumer", "double", "foreign", "dup"):
        out[name] = d / f"lib{name}.so"
        cc("-shared", "-fPIC", "-fvisibility=hidden", "-o", str(out[name]), str(d / f"{name}.c"))
    for name in ("arch_a", "arch_b", "arch_main"):
        out[name] = d / f"{name}.o"
        cc("-c", "-fPIC", "-fvisibility=hidden", "-o", str(out[name]), str(d / f"{name}.c"))
    out["archive"] = d / "libshim.a"
    subprocess.run(["ar", "rcs", str(out["archive"]), str(out["arch_a"]), str(out["arch_b"])], check=True)
    out["from_archive"] = d / "libfromarchive.so"
    cc("-shared", "-o", str(out["from_archive"]), str(out["arch_main"]), str(out["archive"]))
    (d / "main.c").write_text(f"int {P}aoti_torch_a(void);\nint main(void){{return {P}aoti_torch_a();}}\n")
    out["exe"] = d / "app"
    cc("-o", str(out["exe"]), str(d / "main.c"), str(out["good"]), f"-Wl,-rpath,{d}")
    (d / "lto.c").write_text("int lto_only(void){return 1;}\n")
    out["lto"] = d / "lto.o"
    cc("-flto", "-c", "-o", str(out["lto"]), str(d / "lto.c"))
    (d / "s.c").write_text("int main(void){return 0;}\n")
    out["static_exe"] = d / "static_app"
    try:
        cc("-static", "-o", str(out["static_exe"]), str(d / "s.c"))
    except subprocess.CalledProcessError:
        del out["static_exe"]
    return out


POLICY = Policy(P, patterns=("aoti_torch_*",), shims=("aoti_torch_a", "aoti_torch_b"),
                required=("aoti_torch_a", "aoti_torch_b"), exports=(P + "caller_stream",))


def found(paths, policy=POLICY, strict=False):
    report = check_paths([Path(p) for p in paths], policy, strict=strict)
    return sorted((f.code, f.symbol) for f in report.findings), report


def test_clean_library_passes_even_strict(built):
    assert found([built["good"]], strict=True)[0] == []


def test_sg001_leaking_unprefixed_shim(built):
    codes, report = found([built["leak"]])
    assert ("SG001", "aoti_torch_b") in codes and report.exit_code == 1


def test_sg003_hidden_shim_seen_in_static_table(built):
    assert found([built["hidden"]])[0] == [("SG003", P + "aoti_torch_b")]


def test_sg002_when_the_static_table_is_stripped(built, tmp_path):
    stripped = tmp_path / "libhidden_stripped.so"
    shutil.copy(built["hidden"], stripped)
    subprocess.run(["strip", "--strip-all", str(stripped)], check=True)
    assert found([stripped])[0] == [("SG002", P + "aoti_torch_b")]


def test_sg002_names_the_member_the_linker_dropped(built):
    codes, report = found([built["from_archive"], built["archive"]])
    assert codes == [("SG002", P + "aoti_torch_b")]
    (finding,) = report.findings
    assert finding.path == str(built["from_archive"]) and "libshim.a(arch_b.o)" in finding.message
    members = [(s.path, s.member) for s in report.files if s.member]
    assert members == [(str(built["archive"]), "arch_a.o"), (str(built["archive"]), "arch_b.o")]


def test_sg004_and_sg008_consumer(built):
    codes, _ = found([built["good"], built["consumer"]])
    assert codes == [("SG004", "aoti_torch_a"), ("SG008", P + "aoti_torch_zz")]


def test_sg005_double_prefix(built):
    codes, _ = found([built["double"]], policy=Policy(P, patterns=("aoti_torch_*",)))
    assert codes == [("SG005", P + P + "aoti_torch_a")]


def test_sg006_foreign_export_only_under_strict(built):
    assert found([built["foreign"]])[0] == []
    assert found([built["foreign"]], strict=True)[0] == [("SG006", "helper_leak")]


def test_sg007_duplicate_shim_and_thread_local(built):
    codes, report = found([built["good"], built["dup"]])
    assert codes == [("SG007", P + "aoti_torch_a")] * 2
    assert {f.path for f in report.findings} == {str(built["good"]), str(built["dup"])}
    # The shim duplicate is an error; the thread-local is exported with default visibility by
    # both, interposable, so the dynamic linker binds every reference to one copy: a note, which
    # is not a finding.
    severities = {(f.symbol, f.severity) for f in report.findings + report.notes}
    assert severities == {(P + "aoti_torch_a", "error"), (P + "caller_stream", "note")}
    assert [f.symbol for f in report.notes] == [P + "caller_stream"] * 2


def test_executable_is_checked_from_its_dynamic_table(built):
    (binary,) = load_paths([built["exe"]])
    assert binary.kind == "executable" and P + "aoti_torch_a" in binary.imports


def test_directory_is_walked_by_magic_skipping_symlinks_and_text(built, tmp_path):
    d = tmp_path / "tree"
    (d / "sub").mkdir(parents=True)
    shutil.copy(built["good"], d / "sub" / "libgood.so.1")
    os.symlink("libgood.so.1", d / "sub" / "libgood.so")
    shutil.copy(built["consumer"], d / "plugin.bin")  # no .so suffix: found by magic
    (d / "README.txt").write_text("not a binary\n")
    codes, report = found([d])
    assert [s.path for s in report.files] == [str(d / "plugin.bin"), str(d / "sub" / "libgood.so.1")]
    assert ("SG004", "aoti_torch_a") in codes
    assert not any(c == "SG007" for c, _ in codes)  # the symlink was not read as a second provider


def test_wheel_members_are_read_in_memory(built, tmp_path):
    wheel = tmp_path / "pkg-1.0-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(built["leak"], "pkg/lib/libleak.so")
        z.write(built["archive"], "pkg/lib/libshim.a")
        z.writestr("pkg/__init__.py", "")
        z.writestr("pkg-1.0.dist-info/RECORD", "")
    before = set(tmp_path.iterdir())
    codes, report = found([wheel])
    assert set(tmp_path.iterdir()) == before  # nothing extracted
    assert ("SG001", "aoti_torch_b") in codes
    assert [s.member for s in report.files] == ["pkg/lib/libleak.so", "pkg/lib/libshim.a:arch_a.o",
                                                "pkg/lib/libshim.a:arch_b.o"]
    with pytest.raises(InputError, match="more than the limit"):
        load_paths([wheel], limits=Limits(zip_members=2))
    with pytest.raises(InputError, match="exceeds the limit"):
        load_paths([wheel], limits=Limits(member_bytes=1000))


def test_wheel_with_a_member_name_given_twice_is_refused(built, tmp_path):
    """Readers disagree on which copy of a repeated name counts (the C loader and Python's zipfile
    took different ones): a zip holding one is malformed, as with '..' or an absolute name."""
    import warnings

    wheel = tmp_path / "pkg-1.0-py3-none-linux_x86_64.whl"
    with warnings.catch_warnings(), zipfile.ZipFile(wheel, "w") as z:
        warnings.simplefilter("ignore")  # zipfile warns "Duplicate name"
        z.write(built["good"], "pkg/lib/libx.so")
        z.write(built["leak"], "pkg/lib/libx.so")
    with pytest.raises(InputError, match=r"'pkg/lib/libx\.so' appears twice"):
        load_paths([wheel])


# Bad input ---------------------------------------------------------------------------------------------


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "shimgen", *args], capture_output=True, text=True, env=env,
                          cwd=cwd or ROOT)


def _bad_inputs(built, d: Path) -> dict[str, Path]:
    data = built["good"].read_bytes()
    files = {
        "text": ("hello.so", b"this is not a binary\n"),
        "empty": ("empty.so", b""),
        "elf4": ("elf4.so", b"\x7fELF"),
        "cut4k": ("cut4k.so", data[:4096]),
        "half": ("half.so", data[: len(data) // 2]),
        "badclass": ("badclass.so", data[:4] + b"\x07" + data[5:]),
    }
    out = {}
    for key, (name, content) in files.items():
        (d / name).write_bytes(content)
        out[key] = d / name
    out["lto"] = built["lto"]
    (d / "emptydir").mkdir()
    out["emptydir"] = d / "emptydir"
    return out


@pytest.mark.parametrize("case", ["text", "empty", "elf4", "cut4k", "half", "badclass", "lto", "emptydir"])
def test_bad_input_exits_2_with_one_line(built, tmp_path, case):
    path = _bad_inputs(built, tmp_path)[case]
    result = run_cli("check-symbols", str(path), "--prefix", P)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "Traceback" not in result.stderr, result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("case", ["cut4k", "half", "elf4"])
def test_lief_alone_would_call_truncated_files_clean_so_the_reader_refuses(built, tmp_path, case):
    path = _bad_inputs(built, tmp_path)[case]
    with pytest.raises(InputError):
        read_elf_lief(path.read_bytes(), str(path))
    with pytest.raises(InputError):
        read_elf(path.read_bytes(), str(path))


def test_static_executable_has_nothing_to_check(built):
    if "static_exe" not in built:
        pytest.skip("no static libc here")
    (binary,) = load_paths([built["static_exe"]])
    assert binary.exports == frozenset() and binary.kind == "executable"


# CLI --------------------------------------------------------------------------------------------------


def test_cli_exit_codes_and_formats(built, tmp_path):
    assert run_cli("check-symbols", str(built["good"]), "--prefix", P).returncode == 0
    leak = run_cli("check-symbols", str(built["leak"]), "--prefix", P)
    assert leak.returncode == 1 and "SG001 aoti_torch_b" in leak.stdout and "\033[" not in leak.stdout
    as_json = run_cli("check-symbols", str(built["leak"]), "--prefix", P, "--format", "json")
    assert json.loads(as_json.stdout)["summary"]["by_code"] == {"SG001": 1}
    out = tmp_path / "reports" / "r.sarif"
    sarif = run_cli("check-symbols", str(built["leak"]), "--prefix", P, "--format", "sarif", "-o", str(out))
    assert sarif.returncode == 1 and sarif.stdout == ""
    assert json.loads(out.read_text())["runs"][0]["results"][0]["ruleId"] == "SG001"
    assert [p.name for p in out.parent.iterdir()] == ["r.sarif"]  # no temporary file left behind


def test_cli_without_policy_exits_2_saying_how(built, tmp_path):
    result = run_cli("check-symbols", str(built["good"]), cwd=tmp_path)
    assert result.returncode == 2
    assert "-c" in result.stderr and "--manifest" in result.stderr and "--prefix" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_with_config_found_from_cwd_and_with_manifest(built, tmp_path):
    (tmp_path / "shimgen.toml").write_text(
        f'prefix = "{P}"\nsymbols = ["aoti_torch_a", "aoti_torch_b"]\nexports = ["{P}caller_stream"]\n')
    found_here = run_cli("check-symbols", str(built["hidden"]), cwd=tmp_path)
    assert found_here.returncode == 1 and "SG003" in found_here.stdout
    assert run_cli("generate", "-c", str(tmp_path / "shimgen.toml")).returncode == 0
    manifest = tmp_path / "generated" / "manifest.json"
    by_manifest = run_cli("check-symbols", str(built["good"]), "--manifest", str(manifest), "--strict", cwd=tmp_path)
    assert by_manifest.returncode == 0, by_manifest.stdout + by_manifest.stderr
    dropped = run_cli("check-symbols", str(built["from_archive"]), str(built["archive"]), "-c",
                      str(tmp_path / "shimgen.toml"))
    assert dropped.returncode == 1 and "arch_b.o" in dropped.stdout


def test_cli_symbols_marks_names(built):
    result = run_cli("symbols", str(built["leak"]), "--prefix", P)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert f"S E func   {P}aoti_torch_a" in lines and "! E func   aoti_torch_b" in lines
    in_process = main(["symbols", str(built["consumer"]), "--prefix", P])
    assert in_process == 0


# The fast reader is LIEF's answer ------------------------------------------------------------------------


def test_fast_reader_equals_lief_on_every_built_binary(built):
    interest = frozenset({P + "aoti_torch_a", P + "aoti_torch_b", "helper", "use_helper"})
    paths = [p for k, p in built.items() if k != "lto" and k != "archive"]
    objects = [p for p in paths if p.suffix == ".o"]
    assert len(paths) >= 10 and objects
    for path in paths:
        data = path.read_bytes()
        fast = read_elf(data, str(path), hidden_of=interest, local_tls=True)
        slow = read_elf_lief(data, str(path), hidden_of=interest, local_tls=True)
        for field in ("kind", "exports", "imports", "tls", "hidden", "soname", "needed", "symbolic", "tls_unique",
                      "tls_protected", "tls_hidden"):
            assert getattr(fast, field) == getattr(slow, field), (path.name, field)
    # ...and every archive member.
    data = built["archive"].read_bytes()
    from shimgen.binary.load import archive_members

    for name, start, length in archive_members(data, "libshim.a"):
        member = data[start:start + length]
        assert read_elf(member, name).exports == read_elf_lief(member, name).exports


def test_column_wise_selection_equals_the_row_by_row_fallback(built, monkeypatch):
    from shimgen.binary import elf

    for key in ("good", "consumer", "dup", "arch_a", "exe"):
        data = built[key].read_bytes()
        fast = read_elf(data, key)
        monkeypatch.setattr(elf.sys, "byteorder", "big")  # forces the per-row path used for foreign byte order
        slow = read_elf(data, key)
        monkeypatch.undo()
        assert (fast.exports, fast.imports, fast.tls) == (slow.exports, slow.imports, slow.tls), key
        assert fast.exports or fast.imports


def test_mutated_files_give_a_binary_or_an_input_error_never_a_crash(built):
    """A seeded smoke test (the hardening work fuzzes properly): corrupt bytes in headers and
    tables, or cut the file, and the fast reader and the archive reader either read it or raise
    InputError. Nothing else may escape."""
    import random

    from shimgen.binary import elf
    from shimgen.binary.load import load_bytes

    rng = random.Random(5)
    for key in ("good", "consumer", "arch_a", "archive", "exe"):
        data = built[key].read_bytes()
        for _ in range(150):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 6)):
                position = rng.randrange(min(len(mutated), 2048)) if rng.random() < 0.6 else rng.randrange(len(mutated))
                mutated[position] = rng.randrange(256)
            if rng.random() < 0.2:
                del mutated[rng.randrange(len(mutated)):]
            with contextlib.suppress(InputError, elf.NoSections):
                load_bytes(bytes(mutated), key, None)


def test_shared_library_without_dynamic_symbol_table_is_bad_input(built, tmp_path):
    import struct

    data = bytearray(built["good"].read_bytes())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for index in range(shnum):
        at = shoff + index * shentsize
        if struct.unpack_from("<I", data, at + 4)[0] == 11:  # SHT_DYNSYM → SHT_PROGBITS
            struct.pack_into("<I", data, at + 4, 1)
    path = tmp_path / "nodynsym.so"
    path.write_bytes(bytes(data))
    # Refused either way: relocation tables now link to a section that is no symbol table.
    with pytest.raises(InputError, match=r"no dynamic symbol table|not a symbol table"):
        load_paths([path])
    result = run_cli("check-symbols", str(path), "--prefix", P)
    assert result.returncode == 2 and ("no dynamic symbol table" in result.stderr or "not a symbol table" in result.stderr)


def test_cli_usage_errors(built):
    result = run_cli("check-symbols", str(built["good"]), "--pattern", "aoti_*")
    assert result.returncode == 2 and "--pattern needs --prefix" in result.stderr
    result = run_cli("check-symbols", str(built["good"]), "--prefix", "__bad")
    assert result.returncode == 2 and "reserved" in result.stderr
    result = run_cli("check-symbols", str(built["good"]), "--prefix", P, "--manifest", "x.json")
    assert result.returncode == 2 and "not allowed with" in result.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    from shimgen.commands.check_symbols import use_color

    class Tty:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert use_color(Tty()) and not use_color(object())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert use_color(object())


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "manifest"])
def test_cli_report_never_overwrites_an_input(built, tmp_path, how):
    binary = tmp_path / "lib.so"
    shutil.copyfile(built["leak"], binary)
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"not": "read"}')
    output = tmp_path / "report.txt"
    if how == "symlink":
        output.symlink_to(binary)
    elif how == "hard link":
        os.link(binary, output)
    args = ["check-symbols", str(binary), "-o", str(binary if how == "same path" else output)]
    args += ["--manifest", str(manifest)] if how == "manifest" else ["--prefix", P]
    if how == "manifest":
        args[3] = str(manifest)
    before = (binary.read_bytes(), manifest.read_bytes())
    result = run_cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "must not overwrite an input" in lines[0], result.stderr
    assert (binary.read_bytes(), manifest.read_bytes()) == before


def test_cli_report_never_overwrites_a_binary_of_a_checked_directory(built, tmp_path):
    """check-symbols DIR -o DIR/lib.so: the walk reads lib.so, so the report may not replace it; a new
    report file inside the directory is fine."""
    directory = tmp_path / "d"
    (directory / "sub").mkdir(parents=True)
    binary = directory / "sub" / "lib.so"
    shutil.copyfile(built["leak"], binary)
    before = binary.read_bytes()
    result = run_cli("check-symbols", str(directory), "-o", str(tmp_path / "d" / "x" / ".." / "sub" / "lib.so"),
                     "--prefix", P)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "must not overwrite an input" in lines[0], result.stderr
    assert binary.read_bytes() == before
    result = run_cli("check-symbols", str(directory), "-o", str(directory / "report.txt"), "--prefix", P)
    assert result.returncode == 1 and "SG001" in (directory / "report.txt").read_text(), result.stderr
