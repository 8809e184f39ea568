"""The shim set: which names are shims, their prefixed names, which are required, where declared.

Pure logic over a ``Config``; the only I/O is reading the configured headers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import ConfigError
from shimgen.files import is_within
from shimgen.project.config import Config
from shimgen.project.headers import include_names, macro_definition_lines, scan_header
from shimgen.project.matcher import ShimMatcher, glob_matches
from shimgen.project.objects import ObjectSymbols, read_symbols_from


@dataclass(frozen=True)
class Shim:
    name: str
    """The plain name, as the source spells it (``aoti_torch_empty_strided``)."""
    prefixed: str
    """The exported name (``executorch_aoti_torch_empty_strided``)."""
    required: bool
    declared_in: str | None
    """'header.h:12' relative to the config's directory, or None when listed in ``symbols``."""
    defined_in: tuple[str, str | None] | None = None
    """(file, archive member) of the object it was read from (``symbols_from``), else None."""
    binding: str | None = None
    """For names read from objects: global, weak, unique, or hook (a weak reference renamed)."""
    type: str | None = None
    """For names read from objects: func, object, tls, notype, other."""
    exported: bool = True
    """Whether the library exports it: False for a name its objects define hidden (renamed, so
    static links cannot collide, but neither required nor in the export lists) and for hooks."""
    declaration: str | None = None
    """The C declaration a scanned header gives, with the prefixed name and no parameter names
    (``AOTITorchError et_aoti_torch_x(AtenTensorHandle, int64_t*)``), else None."""

    @property
    def pragma_misses_in_cxx(self) -> bool:
        """``#pragma redefine_extname`` does not reach this name in C++ (measured, g++ 12 and
        clang 22): a C++-linkage global keeps its unmangled name on both, and g++ leaves an
        ``extern "C"`` inline (weak) definition unrenamed. Data and weak definitions read from
        objects may be either, so ``rename = "auto"`` renames them with #define in C++."""
        return self.binding in ("weak", "unique") or self.type in ("object", "tls")


@dataclass(frozen=True)
class ShimSet:
    prefix: str
    shims: tuple[Shim, ...]
    """Sorted by plain name."""
    exports: tuple[str, ...]
    """Extra, non-shim exports (sorted)."""
    objects: ObjectSymbols | None = None
    """What ``symbols_from`` read (None without it): the weak, unique and skipped names to report."""
    headers: tuple[str, ...] = ()
    """The scanned headers, relative to the config's directory (POSIX spelling)."""
    export_macro_defined_in: str | None = None
    """'header.h:12' of the first scanned header that ``#define``s the export macro, else None."""
    conflicts: tuple[str, ...] = ()
    """One line per shim the headers declare with two different signatures."""

    def warnings(self) -> list[str]:
        return [*self.conflicts, *(self.objects.warnings() if self.objects is not None else [])]

    @property
    def project_owns_export_macro(self) -> bool:
        """True when export.h must leave the export macro to the project (config: export_macro_owner)."""
        return self.export_macro_defined_in is not None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.shims)

    @property
    def required(self) -> tuple[Shim, ...]:
        return tuple(s for s in self.shims if s.required)

    def exported_names(self) -> tuple[str, ...]:
        """What the linker export lists hold: every exported prefixed shim, then the extra exports
        (names, globs and C++ patterns: shimgen.project.exports.linker_lists spells them per format)."""
        return tuple(sorted({s.prefixed for s in self.shims if s.exported} | set(self.exports)))


def header_files(config: Config) -> list[Path]:
    """The headers matched by ``config.headers``, sorted, each inside the project directory."""
    files: set[Path] = set()
    for pattern in config.headers:
        matches = [p for p in config.root.glob(pattern) if p.is_file()]
        if not matches:
            raise ConfigError(f"{config.path}: headers: '{pattern}' matches no file under {config.root}")
        for match in matches:
            if not is_within(match, config.root):
                raise ConfigError(f"{config.path}: headers: '{match}' leaves the project directory {config.root}")
            files.add(match)
    return sorted(files)


def input_files(config: Config) -> list[Path]:
    """Every file the config reads: itself, its headers, and what ``symbols_from`` and
    ``lint_sources`` match. No output may be written over one of them."""
    files = {config.path, *header_files(config)}
    for pattern in (*config.symbols_from, *config.lint_sources):
        files.update(p for p in config.root.glob(pattern) if p.is_file())
    return sorted(files)


def resolve_shims(config: Config, *, objects: Sequence[tuple[Path, str]] = (), pending: bool = False) -> ShimSet:
    """Union of explicit symbols, header declarations and the defined globals of ``symbols_from``,
    with 'required' applied.

    ``objects`` are further (file, label) pairs to read, as ``symbols_from`` would: the objects of
    a ``symbols_from_targets`` target, listed by the build (shimgen.project.objects.object_list).
    ``pending``: those objects are not built yet, so an empty set is no error (the first CMake
    configure, which needs the config's variables before anything is compiled)."""
    declared: dict[str, str | None] = dict.fromkeys(config.symbols)
    problems: list[str] = []
    scanned = header_files(config)
    signatures: dict[str, tuple[str, str]] = {}
    conflicts: list[str] = []
    for header in scanned:
        for declaration in scan_header(header, config.export_macro):
            where = f"{header.relative_to(config.root).as_posix()}:{declaration.line}"
            # A name declared again (in another #if branch, say) keeps its first location; with
            # another signature it is another function under the same symbol, which one build
            # cannot export both of: say so rather than merge them silently.
            first = signatures.setdefault(declaration.name, (declaration.signature, where))
            if first[0] != declaration.signature:
                conflicts.append(f"shim '{declaration.name}' is declared with two signatures: {first[1]} "
                                 f"'{first[0]}' and {where} '{declaration.signature}'; only one can be "
                                 "the exported symbol (scan one of the headers, or rename one)")
            if not declared.get(declaration.name):
                declared[declaration.name] = where
    owner = config.export_macro_owner
    defined_in = None
    if owner != "shimgen":
        candidates = [*scanned, *included_headers(scanned, config.root)]
        defined_in = next((f"{h.relative_to(config.root).as_posix()}:{lines[0]}" for h in candidates
                           if (lines := macro_definition_lines(h, config.export_macro))), None)
        if owner == "project" and defined_in is None:
            defined_in = "the project"
    read = None
    if config.symbols_from or objects:
        read = read_symbols_from(config.root, config.path, config.symbols_from, prefix=config.prefix,
                                 exclude=config.exclude, extra=objects)
        for symbol in read.renamed:
            declared.setdefault(symbol.name, None)
    from_objects = {s.name: s for s in read.renamed} if read is not None else {}
    for name in declared:
        if name.startswith(config.prefix):
            problems.append(f"{config.path}: shim '{name}' already carries the prefix '{config.prefix}'")
    if not declared and config.symbols_from_targets and not objects and not pending:
        problems.append(f"{config.path}: the rename set comes from the objects of the CMake targets "
                        f"{', '.join(config.symbols_from_targets)} (symbols_from_targets), which this command "
                        "cannot see; build with 'shimgen build' or shimgen_prefix_library() in CMake "
                        "(or pass 'shimgen generate --target NAME --objects-list FILE'); check-symbols and lint take the "
                        "set from the manifest that build wrote (--manifest <build>/shimgen/<target>/manifest.json)")
    elif not declared and not pending:
        problems.append(f"{config.path}: the shim set is empty (no 'symbols', and no declaration marked "
                        f"{config.export_macro} in the headers)")
    prefixed = {config.prefix + name for name in declared}
    for name in sorted(prefixed & set(declared)):
        problems.append(f"{config.path}: prefixed name '{name}' collides with a declared shim of that name")

    # By default what the library exports is required: every listed or declared name, and of the
    # names read from objects those the objects export (a hidden one is renamed, not demanded).
    required_names = {n for n in declared if n not in from_objects or from_objects[n].exported}
    if config.required is not None:
        required_names = set()
        for item in config.required:
            matched = glob_matches(declared, item)
            if not matched:
                problems.append(f"{config.path}: required: '{item}' matches no shim in the set")
            required_names |= matched
    if problems:
        raise ConfigError(problems)

    shims = tuple(
        Shim(name=name, prefixed=config.prefix + name, required=name in required_names, declared_in=where,
             defined_in=(from_objects[name].file, from_objects[name].member) if name in from_objects else None,
             binding=from_objects[name].binding if name in from_objects else None,
             type=from_objects[name].type if name in from_objects else None,
             exported=from_objects[name].exported if name in from_objects else True,
             declaration=_c_declaration(signatures[name][0], name, config.prefix) if name in signatures else None)
        for name, where in sorted(declared.items())
    )
    # Names the objects export that no rename reaches (C++ API) stay exported as they are.
    kept = set(read.kept_exports) if read is not None else set()
    return ShimSet(prefix=config.prefix, shims=shims, exports=tuple(sorted(set(config.exports) | kept)), objects=read,
                   headers=tuple(h.relative_to(config.root).as_posix() for h in scanned),
                   export_macro_defined_in=defined_in, conflicts=tuple(conflicts))


def included_headers(headers: Sequence[Path], root: Path) -> list[Path]:
    """The project headers that ``headers`` include directly (``#include "x"`` or ``<x>``), found
    beside the includer or under one of its parent directories inside ``root``: where a project's
    own export macro is usually defined (ExecuTorch: ``<executorch/backends/aoti/export.h>``)."""
    found: dict[Path, None] = {}
    for header in headers:
        for name in include_names(header):
            for directory in (header.parent, *header.parent.parents):
                if not is_within(directory, root):
                    break
                candidate = directory / name
                if candidate.is_file() and is_within(candidate, root) and candidate not in headers:
                    found.setdefault(candidate)
                    break
    return list(found)


def _c_declaration(signature: str, name: str, prefix: str) -> str:
    """A scanned signature ('int f ( int , char * )') spelled as C, with the prefixed name."""
    text = " ".join(prefix + name if token == name else token for token in signature.split(" "))
    for before, after in ((" ( ", "("), (" (", "("), ("( ", "("), (" )", ")"), (" ,", ","), (" *", "*"),
                          (" &", "&"), (" [", "["), ("[ ", "["), (" ]", "]")):
        text = text.replace(before, after)
    return text


def shim_matcher(config: Config, shimset: ShimSet) -> ShimMatcher:
    """Which names are shims for this config: its patterns, and every name of its shim set (listed
    or declared), so a listed shim no pattern matches is still one. check-symbols' Policy, prefix-imports
    and recompile all ask this."""
    return ShimMatcher(tuple(config.patterns), shimset.names)
