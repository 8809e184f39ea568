"""Rebuild an AOTInductor package's own C++ with the prefix: the recompile route.

A ``.pt2`` ships the generated ``wrapper.cpp`` and ``kernel.cpp`` next to the ``.so``, each ending
with a comment holding the exact compile command torch used. Recompiling them with the generated
``export.h`` force-included (``-include``) and ``-D<macro>=<prefix>`` renames every shim call at
the preprocessor level: the same macro mechanism the runtime itself is built with, applied to code
nobody here wrote. The model's constants blob is taken byte-for-byte from the original ``.so``, and so
is whatever follows its ELF image: the weights AOTInductor appends to the file (over 2 GB, or with
``force_mmap_weights``; shimgen.aoti.overlay), re-appended to the relinked ``.so`` where the model
finds them.

The recorded command is data, never run: compile_command.py keeps only allow-listed flags, and the
compiler is the user's. ``package_sources`` is pure; ``recompile`` is the I/O edge (zip, compiler, files).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shlex
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from shimgen.aoti.compile_command import CompileFlags, vetted_flags
from shimgen.aoti.overlay import append_overlay, check_self_mapped, image_alone
from shimgen.aoti.package import (
    MODEL_SO_LIMIT,
    check_source_and_output,
    extract_member,
    model_members,
    open_package,
    read_magic,
    read_text_member,
    write_package,
)
from shimgen.aoti.prefix_imports import checker, parse_image, read_dynamic_symbols, verify_imports
from shimgen.binary.magic import ZIP_MAGIC
from shimgen.builder import process
from shimgen.errors import InputError

if TYPE_CHECKING:
    from shimgen.project.config import Config
    from shimgen.project.shims import ShimSet

log = logging.getLogger(__name__)

CONSTANTS_START = "_binary_constants_bin_start"
CONSTANTS_END = "_binary_constants_bin_end"
SELF_MAPPED = "-DUSE_MMAP_SELF"
"""The define of a model that maps its weights from the end of its own .so (torch's cpp_builder)."""


@dataclass(frozen=True)
class RecompileResult:
    input: Path
    output: Path
    member: str
    sources: tuple[str, ...]
    imports: tuple[str, ...]
    """The prefixed shim imports of the rebuilt .so."""


def compiler_command(compiler: str | None) -> list[str]:
    """The C++ compiler recompile runs: ``--compiler``, else ``$CXX``, else ``g++``; never the one the
    package names (a package is data: see compile_command.py)."""
    chosen = compiler or os.environ.get("CXX") or "g++"
    try:
        words = shlex.split(chosen)
    except ValueError as exc:
        raise InputError(f"compiler {chosen!r}: {exc}") from None
    if not words:
        raise InputError("the compiler is empty (--compiler or $CXX)")
    return words


def _torch_include_dirs() -> list[str]:
    """torch's headers from the installed package, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations))) / "include"
    return [f"-I{root}", f"-I{root / 'torch/csrc/api/include'}"] if root.is_dir() else []


def _constants_blob(image: Path, where: str) -> bytes:
    """The bytes between _binary_constants_bin_start and _end in the original .so's ELF image (empty
    if none)."""
    binary = parse_image(image, where)
    found = {s.name: s.value for s in binary.dynamic_symbols if s.name in (CONSTANTS_START, CONSTANTS_END)}
    if len(found) != 2:
        return b""
    size = found[CONSTANTS_END] - found[CONSTANTS_START]
    if size <= 0:
        return b""
    return bytes(binary.get_content_from_virtual_address(found[CONSTANTS_START], size))


def _blob_assembly(blob: Path) -> str:
    # Same symbols torch's weights.o defines; read-only data, 64-byte aligned like torch's blob.
    path = str(blob).replace("\\", "\\\\").replace('"', '\\"')
    return (
        '\t.section .lrodata,"a"\n\t.balign 64\n'
        f"\t.globl {CONSTANTS_START}\n{CONSTANTS_START}:\n"
        f'\t.incbin "{path}"\n'
        f"\t.globl {CONSTANTS_END}\n{CONSTANTS_END}:\n"
        '\t.section .note.GNU-stack,"",@progbits\n'
    )


def recompile(source: Path, output: Path, config: Config, *, compiler: str | None = None) -> RecompileResult:
    """Rebuild the model in ``source`` (.pt2) with the prefix; write a .so or .pt2 to ``output``."""
    from shimgen.project.shims import resolve_shims

    source, output = Path(source), Path(output)
    where, header_name = _preflight(source, output, config)
    shims = resolve_shims(config)
    archive = open_package(source, where)
    with archive, tempfile.TemporaryDirectory(prefix=".shimgen-recompile-", dir=output.parent) as scratch:
        work = Path(scratch).resolve()  # the tools run inside it
        member, cpps = package_sources([i.filename for i in archive.infolist()], where)
        sources = _stage_sources(archive, cpps, work, where)
        header = _write_header(work / header_name, config, shims)
        self_mapped = any(f.partition("=")[0] == SELF_MAPPED for _, _, flags in sources for f in flags.flags)
        original, image_size = _stage_constants(archive, member, work, f"{where}:{member}", self_mapped)
        extra = [f"-include{header}", f"-D{config.macro}={config.prefix}", *_torch_include_dirs()]
        linked = _compile_and_link(sources, work / "constants.S", work, extra, compiler_command(compiler))
        label = f"{output.name} (recompiled {member})"
        imports = _verify_imports(linked, label, config, shims)  # LIEF reads the linked image alone
        append_overlay(original, image_size, linked, f"{where}:{member}")  # the appended weights, if any
        checker(config, shims)(linked, label)  # check-symbols reads through a mapping: the whole file
        _publish(archive, member, linked, work, output)
    return RecompileResult(source, output, member, tuple(cpps), imports)


def _preflight(source: Path, output: Path, config: Config) -> tuple[str, str]:
    """Refuse what cannot be recompiled before anything is written; returns (where, header name)."""
    where = check_source_and_output(source, output, config.path)
    if output.suffix not in (".so", ".pt2"):
        raise InputError(f"{output}: the output must end in .so or .pt2")
    if read_magic(source, where) != ZIP_MAGIC:
        raise InputError(f"{where}: not a .pt2 package (the recompile route needs the package's .cpp sources)")
    header_name = config.outputs.files.get("header")
    if not header_name:
        raise InputError(f"{config.path}: outputs.header is disabled; the recompile route needs export.h")
    return where, header_name


def package_sources(names: Sequence[str], where: str) -> tuple[str, list[str]]:
    """The package's one model .so and the generated .cpp files beside it (pure; CPU models only)."""
    sos = model_members(names)
    if len(sos) != 1:
        raise InputError(f"{where}: expected one model .so in the package, found {len(sos)}")
    member = sos[0]
    model_dir = str(PurePosixPath(member).parent)
    beside = [n for n in names if str(PurePosixPath(n).parent) == model_dir]
    cpps = sorted(n for n in beside if n.endswith(".cpp"))
    if not cpps:
        raise InputError(f"{where}: the package holds no generated .cpp beside {member}")
    if any(n.endswith((".cubin", ".fatbin")) for n in beside):
        raise InputError(f"{where}: a CUDA model; the recompile route rebuilds CPU models only "
                         "(use 'shimgen prefix-imports')")
    return member, cpps


def _write_header(header: Path, config: Config, shims: ShimSet) -> Path:
    """export.h, exactly as 'shimgen generate' renders it for this config."""
    from shimgen.generate.render import render

    header.write_bytes(render(config, shims)[config.outputs.dir / header.name])
    return header


def _stage_sources(archive: zipfile.ZipFile, cpps: Sequence[str], work: Path,
                   where: str) -> list[tuple[str, Path, CompileFlags]]:
    """Each generated .cpp (its member name) written to the scratch directory, with the vetted flags
    it records: all refused or accepted before anything is compiled."""
    sources = []
    for name in cpps:
        cpp = work / PurePosixPath(name).name
        text = read_text_member(archive, name, where)
        cpp.write_text(text)
        sources.append((name, cpp, vetted_flags(text, f"{where}:{name}")))
    return sources


def _stage_constants(archive: zipfile.ZipFile, member: str, work: Path, where: str,
                     self_mapped: bool) -> tuple[Path, int]:
    """The original .so and where its ELF image ends; its constants blob, read from the image alone,
    and ``constants.S``, which defines the blob again. A model that maps its weights from the end of
    its file (``self_mapped``) must hold them there as its blob says: else refused, nothing built."""
    original = extract_member(archive, member, work / "original.so", where, MODEL_SO_LIMIT)
    image, image_size = image_alone(original, work / "original.image.so", where)
    constants = _constants_blob(image, where)
    if image != original:
        image.unlink()
    if self_mapped:
        check_self_mapped(constants, original, image_size, where)
    blob = work / "constants.bin"
    blob.write_bytes(constants)
    (work / "constants.S").write_text(_blob_assembly(blob))
    return original, image_size


def _compile_and_link(sources: Sequence[tuple[str, Path, CompileFlags]], assembly: Path, work: Path,
                      extra: Sequence[str], cxx: Sequence[str]) -> Path:
    """Compile every source at once with its vetted recorded flags plus ``extra``, then link the model.

    Every tool runs in the scratch directory, so a relative name in an allowed flag stays inside it."""
    objects, jobs, openmp = [], [], False
    for index, (name, cpp, command) in enumerate(sources):
        log.debug("%s: the package recorded compiler %r (not run; using %s)", name, command.recorded_compiler,
                  shlex.join(cxx))
        openmp = openmp or "-fopenmp" in command.flags
        obj = work / f"{index}.o"
        jobs.append(process.start([*cxx, *command.flags, *extra, "-c", cpp, "-o", obj], what=f"compiling {name}",
                                  cwd=work))
        objects.append(obj)
    blob_obj = work / "constants.o"
    jobs.append(process.start([*cxx, "-c", assembly, "-o", blob_obj], what="compiling the constants", cwd=work))
    # Progress: a model's generated C++ takes tens of seconds to compile; a line per step shows it moves.
    steps = len(jobs) + 1
    log.info("recompile: compiling %d sources at once (%s) ...", len(jobs), ", ".join(job.what.removeprefix("compiling ")
                                                                                      for job in jobs))
    try:
        for done, job in enumerate(jobs, 1):
            job.wait()
            log.info("[%d/%d] %s: done", done, steps, job.what)
    finally:
        for job in jobs:
            job.stop()
    log.info("[%d/%d] linking the model .so", steps, steps)
    linked = work / "model.so"
    # Kernels compiled with -fopenmp call into libgomp (torch links it the same way).
    process.run([*cxx, "-shared", "-fPIC", *(["-fopenmp"] if openmp else []), *objects, blob_obj,
                 "-o", linked], what="linking the model .so", cwd=work)
    return linked


def _verify_imports(linked: Path, label: str, config: Config, shims: ShimSet) -> tuple[str, ...]:
    """The imports check prefix-imports makes: only prefixed shim imports, each one the runtime provides."""
    from shimgen.project.shims import shim_matcher

    provided = frozenset(s.prefixed for s in shims.shims)
    return verify_imports(read_dynamic_symbols(linked, label), shim_matcher(config, shims), config.prefix,
                          provided, where=label)


def _publish(archive: zipfile.ZipFile, member: str, linked: Path, work: Path, output: Path) -> None:
    """Stage the .so or the rewritten .pt2 beside ``output``, then rename it into place."""
    staged = work / ("out" + output.suffix)
    if output.suffix == ".pt2":
        write_package(archive, {member: linked}, staged, str(archive.filename))
    else:
        os.replace(linked, staged)
    os.replace(staged, output)
