"""Rename a compiled model's shim imports to the prefixed names: the rewrite route.

AOTInductor in torch 2.13 cannot emit prefixed shim calls, but with ``link_libtorch=False`` its
``.so`` reaches the shims only through undefined dynamic symbols. Renaming those symbols (in
``.dynsym``/``.dynstr``) makes the dynamic linker bind them to the prefixed runtime instead of
whichever library happens to export the plain names first (libtorch).

``plan_renames`` is pure; ``prefix_imports`` is the I/O edge (LIEF, zip files, atomic writes). The
output is checked before it is moved into place, so a failed rewrite never leaves a file behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.aoti.localize import localize_cxx_runtime, verify_localized
from shimgen.aoti.overlay import append_overlay, image_alone
from shimgen.aoti.package import (
    MODEL_SO_LIMIT,
    check_source_and_output,
    extract_member,
    model_members,
    open_package,
    read_magic,
    write_package,
)
from shimgen.binary.elf import ELF_MAGIC
from shimgen.binary.magic import ZIP_MAGIC
from shimgen.errors import InputError
from shimgen.project.matcher import ShimMatcher

Shims = ShimMatcher | Sequence[str]
"""Which names are shims: the config's matcher (patterns + the shim set), or bare patterns."""


@dataclass(frozen=True)
class DynSymbol:
    """One entry of a binary's dynamic symbol table, as far as renaming cares."""

    name: str
    defined: bool
    version: str | None
    """The required version (``GLIBC_2.2.5``) of an undefined symbol, or None when unversioned."""


@dataclass(frozen=True)
class RenamePlan:
    renames: tuple[tuple[str, str], ...]
    """(plain, prefixed) pairs, sorted by plain name."""
    already_prefixed: tuple[str, ...]
    """Imports that already carry the prefix (a second rewrite finds only these)."""


@dataclass(frozen=True)
class MemberResult:
    member: str
    """Path of the rewritten .so inside a .pt2, or '' for a plain .so."""
    renamed: tuple[str, ...]
    """The plain names that were renamed."""
    imports: tuple[str, ...]
    """The prefixed shim imports of the output, as re-read from it."""
    localized: tuple[str, ...] = ()
    """C++ runtime symbols the input exported and the output hides (see shimgen.aoti.localize)."""


@dataclass(frozen=True)
class RewriteResult:
    input: Path
    output: Path
    members: tuple[MemberResult, ...]

    @property
    def renamed_count(self) -> int:
        return sum(len(m.renamed) for m in self.members)


def plan_renames(symbols: Iterable[DynSymbol], shims: Shims, prefix: str, *, where: str) -> RenamePlan:
    """Which undefined shim symbols to rename; raises InputError for binaries this route cannot fix.

    A binary that *defines* a shim is a shim library, not a consumer: renaming its imports would
    leave its own exports plain. A versioned import (``name@VER``) binds through ``.gnu.version_r``
    to a particular library's version node; renaming it would require a version the prefixed
    runtime does not define, so the result would not load.
    """
    is_shim = ShimMatcher.of(shims)
    renames: dict[str, str] = {}
    already: set[str] = set()
    defined: list[str] = []
    versioned: list[str] = []
    for symbol in symbols:
        plain = symbol.name[len(prefix):] if symbol.name.startswith(prefix) else None
        if symbol.defined:
            if is_shim(symbol.name) or (plain is not None and is_shim(plain)):
                defined.append(symbol.name)
            continue
        if plain is not None and is_shim(plain):
            already.add(symbol.name)
            continue
        if not is_shim(symbol.name):
            continue
        if symbol.version is not None:
            versioned.append(f"{symbol.name}@{symbol.version}")
            continue
        renames[symbol.name] = prefix + symbol.name
    if defined:
        raise InputError(
            f"{where}: defines {len(defined)} shim(s) ({_some(defined)}); prefix-imports rewrites consumers of "
            "the shims, not a shim library (rebuild the library with the generated export.h instead)"
        )
    if versioned:
        raise InputError(
            f"{where}: imports versioned shim(s) ({_some(versioned)}); a renamed symbol would need a version "
            "the prefixed runtime does not define"
        )
    if not renames and not already:
        raise InputError(f"{where}: imports no shim matching {is_shim.describe()}; nothing to rewrite "
                         "(is this the model's .so?)")
    return RenamePlan(tuple(sorted(renames.items())), tuple(sorted(already)))


AOTI_ABI_PREFIX = "aoti_"
"""Every name of torch's AOTInductor C ABI (aoti_torch_*, aoti_record_function_*, ...): an import of one
that no shim pattern matched stays plain, and beside libtorch it binds there."""


def verify_imports(symbols: Iterable[DynSymbol], shims: Shims, prefix: str,
                   provided: frozenset[str] | None, *, where: str) -> tuple[str, ...]:
    """The prefixed shim imports of a rewritten binary; raises InputError if it still imports a plain
    shim, or a prefixed one the shim set does not provide (``provided`` None skips that test)."""
    is_shim = ShimMatcher.of(shims)
    symbols = list(symbols)
    plain = sorted(s.name for s in symbols if not s.defined and is_shim(s.name))
    if plain:
        raise InputError(f"{where}: still imports plain shim(s) after rewriting: {_some(plain)}")
    uncovered = sorted(s.name for s in symbols if not s.defined and s.name.startswith(AOTI_ABI_PREFIX)
                       and not is_shim.is_prefixed(s.name, prefix))
    if uncovered:
        raise InputError(
            f"{where}: imports AOTInductor C ABI name(s) the config's patterns do not cover ({_some(uncovered)}); "
            "left plain they would bind to whichever library exports them first (libtorch): add a pattern "
            "for them (the bundled runtime's config has aoti_record_function_*)"
        )
    imports = sorted(
        s.name for s in symbols
        if not s.defined and is_shim.is_prefixed(s.name, prefix)
    )
    if provided is not None:
        missing = [name for name in imports if name not in provided]
        if missing:
            raise InputError(
                f"{where}: imports {len(missing)} prefixed shim(s) the shim set does not provide "
                f"({_some(missing)}); the model would fail to load on this runtime (docs/coverage.md lists the "
                "op fallbacks each model family imports and which ones the runtime serves)"
            )
    return tuple(imports)


def _some(names: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", and {len(names) - limit} more" if len(names) > limit else "")


# ---------------------------------------------------------------------------------------------
# I/O edge: LIEF and files.


def parse_elf(path: Path, where: str):
    import lief  # heavy: imported only when a binary is read

    lief.logging.disable()
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise InputError(f"{where}: cannot read: {exc.strerror}") from None
    if head != ELF_MAGIC:
        raise InputError(f"{where}: not an ELF shared object")
    binary = lief.ELF.parse(str(path))
    # LIEF returns an empty Binary (no sections, no symbols) for truncated files instead of failing.
    if binary is None or not binary.sections or binary.header.file_type != lief.ELF.Header.FILE_TYPE.DYN:
        raise InputError(f"{where}: not a readable ELF shared object (truncated or corrupt?)")
    return binary


def parse_image(path: Path, where: str):
    """``parse_elf`` of an ELF image alone (overlay.image_alone), refused when LIEF finds data after it:
    then the image's extent by its headers and LIEF's disagree, and cutting there would lose bytes."""
    binary = parse_elf(path, where)
    if binary.has_overlay:
        raise InputError(f"{where}: corrupt: data after the ELF image that its headers do not describe")
    return binary


def _symbols(binary) -> list[DynSymbol]:
    result = []
    for symbol in binary.dynamic_symbols:
        if not symbol.name:
            continue
        version = None
        # Version index 0 is local, 1 is global (unversioned); higher ones name a version node.
        if symbol.has_version and symbol.symbol_version.value > 1:
            aux = symbol.symbol_version.symbol_version_auxiliary
            version = aux.name if aux is not None else str(symbol.symbol_version.value)
        result.append(DynSymbol(symbol.name, symbol.shndx != 0, version))
    return result


def read_dynamic_symbols(path: Path, where: str | None = None) -> list[DynSymbol]:
    return _symbols(parse_elf(path, where or str(path)))


def imported_aoti_names(path: Path) -> set[str]:
    """The names a model .so imports that contain ``aoti_torch_``, plain or prefixed: what it needs
    from libtorch or a runtime."""
    return {s.name for s in read_dynamic_symbols(path) if not s.defined and "aoti_torch_" in s.name}


Verifier = Callable[[Path, str], None]
"""Called with each rewritten .so (still in scratch space) and its display name; raises to reject it."""


def _rewrite_so(source: Path, target: Path, prefix: str, shims: Shims,
                provided: frozenset[str] | None, where: str, verify: Verifier | None) -> MemberResult:
    # LIEF gets the ELF image alone, and the overlay (gigabytes of weights) is streamed from the
    # source after it, so memory follows the image.
    image, image_size = image_alone(source, target.with_name(target.name + ".image"), where)
    binary = parse_image(image, where)
    plan = plan_renames(_symbols(binary), shims, prefix, where=where)
    wanted = dict(plan.renames)
    for symbol in binary.dynamic_symbols:
        if symbol.shndx == 0 and symbol.name in wanted:
            symbol.name = wanted[symbol.name]
    localized = localize_cxx_runtime(binary)
    binary.write(str(target))
    del binary
    # Verify what was written, read back fresh, never the in-memory object (the image: LIEF again).
    written = parse_elf(target, where)
    imports = verify_imports(_symbols(written), shims, prefix, provided, where=where)
    verify_localized(written, where)
    del written
    if image != source:
        image.unlink()
    append_overlay(source, image_size, target, where)
    os.chmod(target, stat.S_IMODE(source.stat().st_mode) or 0o755)
    if verify is not None:  # check-symbols reads through a mapping: the whole file, overlay included
        verify(target, where)
    return MemberResult(member="", renamed=tuple(name for name, _ in plan.renames), imports=imports,
                        localized=localized)


def prefix_imports(source: Path, output: Path, *, prefix: str, shims: Shims,
                   provided: frozenset[str] | None = None, verify: Verifier | None = None) -> RewriteResult:
    """Rewrite ``source`` (.so or .pt2) into ``output``; nothing is written unless every check passes."""
    source, output = Path(source), Path(output)
    shims = ShimMatcher.of(shims)  # compiled once for every member
    where = check_source_and_output(source, output)
    magic = read_magic(source, where)

    try:
        scratch_dir = tempfile.TemporaryDirectory(prefix=".shimgen-rewrite-", dir=output.parent)
    except OSError as exc:
        raise InputError(f"{output}: cannot write in {output.parent}: {exc.strerror}") from None
    with scratch_dir as scratch:
        work = Path(scratch)
        if magic == ELF_MAGIC:
            staged = work / "out.so"
            members: tuple[MemberResult, ...] = (_rewrite_so(source, staged, prefix, shims, provided, where, verify),)
        elif magic == ZIP_MAGIC:
            staged = work / "out.pt2"
            members = _rewrite_pt2(source, staged, work, prefix, shims, provided, where, verify)
        else:
            raise InputError(f"{where}: neither an ELF shared object nor a .pt2 (zip) package")
        os.replace(staged, output)  # same directory as the output: atomic
    return RewriteResult(source, output, members)


def _rewrite_pt2(source: Path, staged: Path, work: Path, prefix: str, shims: Shims,
                 provided: frozenset[str] | None, where: str, verify: Verifier | None) -> tuple[MemberResult, ...]:
    with open_package(source, where) as archive:
        infos = archive.infolist()
        targets = model_members([i.filename for i in infos])
        if not targets:
            raise InputError(f"{where}: the package holds no AOTInductor model .so (*/data/aotinductor/*/*.so)")
        results = []
        rewritten: dict[str, Path] = {}
        for index, name in enumerate(targets):
            member_in = work / f"in{index}.so"
            member_out = work / f"out{index}.so"
            extract_member(archive, name, member_in, where, MODEL_SO_LIMIT)
            result = _rewrite_so(member_in, member_out, prefix, shims, provided, f"{where}:{name}", verify)
            results.append(MemberResult(name, result.renamed, result.imports, result.localized))
            rewritten[name] = member_out
        write_package(archive, rewritten, staged, where)
    return tuple(results)


def prefix_imports_with_config(source: Path, output: Path, config) -> RewriteResult:
    """``prefix_imports`` with the prefix, patterns and shim set of a ``Config``."""
    from shimgen.project.shims import resolve_shims, shim_matcher

    check_source_and_output(Path(source), Path(output), config.path)
    shimset = resolve_shims(config)
    provided = frozenset(shim.prefixed for shim in shimset.shims)
    return prefix_imports(source, output, prefix=config.prefix, shims=shim_matcher(config, shimset),
                          provided=provided, verify=checker(config, shimset))


def checker(config, shims) -> Verifier:
    """check-symbols as a verifier: any error finding on the rewritten .so rejects it."""
    from shimgen.check import Policy, check_paths

    policy = Policy.from_config(config, shims)

    def verify(path: Path, where: str) -> None:
        report = check_paths([path], policy)
        if report.exit_code != 0:
            found = [f"{f.code} {f.symbol}" for f in report.findings]
            raise InputError(f"{where}: check-symbols rejects the rewritten binary: {_some(found)}")

    return verify
