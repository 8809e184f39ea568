"""The one config: find it, read it, validate every key, and return a frozen ``Config``.

Config as data: each key is a field of ``Config`` (or ``OutputsTable``) declared with ``key()``,
carrying its type, default, documentation and value checks (shimgen.project.keys). Validation is
generic code over those fields; the README tables and ``config.schema.json`` are generated from them
(``python -m shimgen.project.config_docs --write``). Every problem is collected and reported at once,
each naming the file, the key and (where it can be found) the line.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from shimgen.errors import ConfigError, printable
from shimgen.files import is_within
from shimgen.project.keys import Context, Key, key, keys_of, read_table, run_checks
from shimgen.project.matcher import DEFAULT_PATTERNS
from shimgen.project.names import MAX_PREFIX_LENGTH, is_identifier, is_reserved, prefix_problem, reserved_word_problem

CONFIG_NAME = "shimgen.toml"
PYPROJECT_NAME = "pyproject.toml"
_LIBRARY = re.compile(r"[A-Za-z0-9_.+-]+\Z")
_GLOB_CHARS = set("*?[")
_TARGET = re.compile(r"[A-Za-z0-9_.+-]+\Z")


# Value checks: each yields one message per problem with an already type-checked value ------------


def _valid_prefix(value: str, context: Context) -> Iterator[str]:
    reason = prefix_problem(value)
    if reason:
        yield reason


def _c_macro(value: str, context: Context) -> Iterator[str]:
    if not is_identifier(value) or is_reserved(value):
        yield f"'{value}' is not a valid, unreserved C macro name"
    elif reserved_word_problem(value):
        yield f"{reserved_word_problem(value)}; it cannot be a macro name"


def _library_name(value: str, context: Context) -> Iterator[str]:
    if not _LIBRARY.match(value):
        yield f"'{value}' is not a valid library name"


def _shim_names(names: tuple[str, ...], context: Context) -> Iterator[str]:
    prefix = context.prefix
    seen: set[str] = set()
    for name in names:
        if not is_identifier(name):
            yield f"'{name}' is not a C identifier"
        elif reserved_word_problem(name):
            yield f"{reserved_word_problem(name)}; it cannot be a shim name"
        elif name in seen:
            yield f"'{name}' is listed twice"
        elif prefix and name.startswith(prefix):
            yield f"'{name}' already carries the prefix '{prefix}'; list the plain name"
        seen.add(name)
    if prefix:
        for name in sorted(seen):
            if prefix + name in seen:
                yield f"prefixed name '{prefix + name}' collides with the declared name '{prefix + name}'"


def _no_empty_items(items: tuple[str, ...], context: Context) -> Iterator[str]:
    for item in items:
        if not item:
            yield "empty string in list"


def _export_items(items: tuple[str, ...], context: Context) -> Iterator[str]:
    from shimgen.project.exports import problems

    yield from problems(items)
    for name in items:
        if is_identifier(name) and reserved_word_problem(name):
            yield f"{reserved_word_problem(name)}; it cannot be an exported name"


def _globs_inside_project(patterns: tuple[str, ...], context: Context) -> Iterator[str]:
    for pattern in patterns:
        if "\0" in pattern:
            yield f"{pattern!r} contains a NUL character, which no path can hold"
        elif _escapes(context.root, pattern):
            yield f"'{pattern}' leaves the project directory {context.root}"


def _target_names(names: tuple[str, ...], context: Context) -> Iterator[str]:
    seen: set[str] = set()
    for name in names:
        if not _TARGET.match(name):
            yield f"'{name}' is not a CMake target name (letters, digits, _ . + -)"
        elif name in seen:
            yield f"'{name}' is listed twice"
        seen.add(name)


def _non_empty(value: str, context: Context) -> Iterator[str]:
    if not value:
        yield f"'{context.name}' must be a non-empty string"


def _dir_inside_project(value: str, context: Context) -> Iterator[str]:
    if "\0" in value:
        yield f"'{context.name}' = {value!r} contains a NUL character, which no path can hold"
    elif _escapes(context.root, value):
        yield f"'{context.name}' = '{value}' leaves the project directory {context.root}"


def _plain_file_name(value: str | Literal[False], context: Context) -> Iterator[str]:
    if value is False:  # switched off (the default of optional outputs such as asm_header)
        return
    if not value or "/" in value or "\\" in value or value in (".", ".."):
        yield f"'{context.name}' must be a plain file name or false"


def _python_module_file(value: str | Literal[False], context: Context) -> Iterator[str]:
    if value and not (value.endswith(".py") and is_identifier(value[:-3])):
        yield f"'{context.name}' = '{value}' is not an importable module file name (name.py)"


_MACRO_SCHEMA = {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}


# The tables -----------------------------------------------------------------------------------
# To add a key: add one field below with key(doc, default=..., checks=...), then use config.<name>
# where it matters. parse_config validates it generically, and the README table and
# shimgen/project/config.schema.json are regenerated from it with
#     python -m shimgen.project.config_docs --write
# (tests/unit/test_config_docs.py fails until you do). A new TOML type is one Kind in keys.py.


@dataclass(frozen=True)
class Outputs:
    dir: Path
    """Absolute output directory."""
    files: dict[str, str]
    """Enabled outputs: output kind (a key of OUTPUT_KEYS but 'dir') to file name inside ``dir``."""

    def path(self, kind: str) -> Path | None:
        name = self.files.get(kind)
        return self.dir / name if name else None


@dataclass(frozen=True, kw_only=True)
class OutputsTable:
    """The keys of ``[outputs]`` as written in TOML; parse_config turns them into ``Outputs``."""

    dir: str = key(
        "output directory (inside the project; `-o DIR` overrides it)",
        default="generated",
        checks=(_non_empty, _dir_inside_project),
        mismatch="'{name}' must be a non-empty string",
    )
    header: str | Literal[False] = key(
        "export macro + one guarded rename per shim, active only when `macro` is defined",
        default="export.h",
        checks=(_plain_file_name,),
    )
    cmake: str | Literal[False] = key(
        "`SHIMGEN_*` variables, INTERFACE target `shimgen_prefix` (alias `shimgen::prefix`), "
        "`shimgen_apply_prefix(<target>)` (PUBLIC)",
        default="shimgen.cmake",
        checks=(_plain_file_name,),
    )
    bzl: str | Literal[False] = key(
        "`SHIM_DEFINES` (Bazel `defines`), `SHIM_PREPROCESSOR_FLAGS` (Buck), name lists, "
        "`shim_library_kwargs()` (alwayslink / link_whole)",
        default="shimgen.bzl",
        checks=(_plain_file_name,),
    )
    version_script: str | Literal[False] = key(
        "ELF version script exporting only the prefixed names and `exports`",
        default="shimgen.map",
        checks=(_plain_file_name,),
    )
    exported_symbols: str | Literal[False] = key(
        "Mach-O exported-symbols list (leading underscore)", default="shimgen.exp", checks=(_plain_file_name,)
    )
    def_: str | Literal[False] = key(
        "Windows module-definition file", default="shimgen.def", checks=(_plain_file_name,), name="def"
    )
    keep: str | Literal[False] = key(
        "references every required shim: retention without whole-archive",
        default="shimgen_keep.c",
        checks=(_plain_file_name,),
    )
    asm_header: str | Literal[False] = key(
        "renames for assembly sources (GAS `.S`; ELF and Mach-O spellings)", default=False, checks=(_plain_file_name,)
    )
    python: str | Literal[False] = key(
        "Python module (`shimgen_names.py`, say): `PREFIX`, `MACRO`, `NAMES` (plain → prefixed), "
        "`DECLARATIONS` (prefixed C declarations from the headers), `symbol()` and a ctypes `function()` helper",
        default=False,
        checks=(_plain_file_name, _python_module_file),
    )
    manifest: str | Literal[False] = key(
        "prefix, macro, patterns, allow, exports and per shim its plain and prefixed name, whether "
        "required, where declared",
        default="manifest.json",
        checks=(_plain_file_name,),
    )


@dataclass(frozen=True, kw_only=True)
class Config:
    path: Path
    """The config file (shimgen.toml or pyproject.toml)."""
    root: Path
    """Its directory: relative paths resolve here and may not leave it."""

    prefix: str = key(
        "prepended to every shim; a C identifier fragment, at most 64 characters, not reserved (`__x`, `_X`)",
        checks=(_valid_prefix,),
        example='"executorch_"',
        schema={"minLength": 1, "maxLength": MAX_PREFIX_LENGTH, "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
    )
    macro: str = key(
        "compile definition that carries the prefix; with `symbols_from(_targets)`: `SHIMGEN_<LIBRARY>_PREFIX`",
        default="AOTI_SHIM_SYMBOL_PREFIX",
        checks=(_c_macro,),
        schema=_MACRO_SCHEMA,
    )
    export_macro: str = key(
        "marks exported declarations (visibility / dllexport); with `symbols_from(_targets)`: "
        "`SHIMGEN_<LIBRARY>_EXPORT`",
        default="AOTI_SHIM_EXPORT",
        checks=(_c_macro,),
        schema=_MACRO_SCHEMA,
    )
    export_macro_owner: Literal["auto", "shimgen", "project"] = key(
        "who defines `export_macro`: `shimgen` (export.h defines it unless already defined), `project` (the "
        "project's own header does; export.h leaves it alone, so a force-included export.h does not clash with "
        "that later `#define`), or `auto` (`project` when a scanned header `#define`s it)",
        default="auto",
    )
    build_macro: str = key(
        "defined while building the library: dllexport rather than dllimport; with "
        "`symbols_from(_targets)`: `SHIMGEN_<LIBRARY>_BUILDING`",
        default="AOTI_SHIM_BUILDING",
        checks=(_c_macro,),
        schema=_MACRO_SCHEMA,
    )
    library: str = key(
        "library name for the `.def` file and the header guard",
        default="shimgen_runtime",
        checks=(_library_name,),
        schema={"pattern": "^[A-Za-z0-9_.+-]+$"},
    )
    patterns: tuple[str, ...] = key(
        "globs: which names are shims when seen in a binary (with `symbols_from(_targets)`: none, "
        "the names read are the shims)", default=DEFAULT_PATTERNS, checks=(_no_empty_items,)
    )
    symbols: tuple[str, ...] = key(
        "explicit shim names (C identifiers, no duplicates, without the prefix)", default=(), checks=(_shim_names,)
    )
    headers: tuple[str, ...] = key(
        "globs of headers scanned for declarations carrying `export_macro`",
        default=(),
        checks=(_globs_inside_project,),
    )
    required: tuple[str, ...] | None = key(
        "names or globs that must be present in built artifacts; each must match a shim",
        default=None,
        shown="every shim",
        checks=(_no_empty_items,),
    )
    allow: tuple[str, ...] = key(
        "globs of other exports permitted by strict checking", default=(), checks=(_no_empty_items,)
    )
    exports: tuple[str, ...] = key(
        "non-shim names the library also exports (added to the linker export lists): exact names (C or "
        "mangled), globs (`acme_api_*`), or C++ patterns over demangled names (`ns::Class::instance()`, "
        "`ns::*`; ELF `extern \"C++\"`, on Mach-O namespace globs only, not in a .def file)",
        default=(),
        checks=(_no_empty_items, _export_items),
    )

    symbols_from: tuple[str, ...] = key(
        "globs of objects, static archives or shared libraries (ELF, Mach-O, PE DLLs, COFF `.obj` and "
        "`.lib`): every defined global symbol they hold joins the rename set (docs/vendoring.md)",
        default=(),
        checks=(_no_empty_items, _globs_inside_project),
    )
    symbols_from_targets: tuple[str, ...] = key(
        "CMake targets of the config's project whose own objects are the rename set: built unprefixed, "
        "read, then built prefixed in one build (`shimgen build`, `shimgen_prefix_library()`; docs/vendoring.md)",
        default=(),
        checks=(_target_names,),
    )
    exclude: tuple[str, ...] = key(
        "globs of names taken out of the set read through `symbols_from` or `symbols_from_targets`",
        default=(),
        checks=(_no_empty_items,),
    )
    rename: Literal["define", "pragma", "auto"] = key(
        "how export.h renames: `define` (#define), `pragma` (#pragma redefine_extname), or `auto` "
        "(per name: the pragma on GCC/Clang, but #define in C++ for data and weak definitions read from "
        "objects, which the pragma misses there; #define on other compilers)",
        default="define",
    )
    lint_sources: tuple[str, ...] = key(
        "globs of sources `shimgen lint` scans for clobbered spellings of renamed names",
        default=(),
        checks=(_no_empty_items, _globs_inside_project),
    )

    outputs: Outputs
    digest: str
    """sha256 of the config file's bytes, recorded in the manifest."""

    @property
    def display_name(self) -> str:
        """The config's name as written into generated banners: no absolute paths, and control
        characters escaped (a line break in the file name would end the banner's comment line and
        make the rest of the name CMake or Starlark code)."""
        return printable(self.path.name)


KEYS: dict[str, Key] = keys_of(Config)
"""Every key of the top-level table."""
OUTPUT_KEYS: dict[str, Key] = keys_of(OutputsTable)
"""Every key of [outputs]."""
SUBTABLES = ("outputs",)
RENAME_MODES = ("define", "pragma", "auto")


def _shims_given(values: Mapping[str, Any]) -> Iterator[str]:
    if not (values["symbols"] or values["headers"] or values["symbols_from"] or values["symbols_from_targets"]):
        yield "give the shims with 'symbols', 'headers', 'symbols_from', 'symbols_from_targets', or several"


def _distinct_macros(values: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    # One macro doing two jobs: export.h would define the prefix as the visibility attribute, or
    # take "building the library" as always on.
    seen: dict[str, str] = {}
    for name in ("macro", "export_macro", "build_macro"):
        value = values[name]
        if isinstance(value, str) and value in seen:
            yield name, f"'{value}' is also '{seen[value]}'; macro, export_macro and build_macro must differ"
        elif isinstance(value, str):
            seen[value] = name


def _exports_are_not_shims(values: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    # A name in both would go into the version script plain, beside its prefixed shim.
    symbols, exports = values["symbols"], values["exports"]
    if isinstance(symbols, tuple) and isinstance(exports, tuple):
        for name in sorted(set(symbols) & set(exports)):
            yield "exports", f"'{name}' is also listed in 'symbols'; a shim is exported prefixed, list it once"


def _names_are_not_macros(values: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    # export.h defines each shim as a macro that expands the prefix macro: a shim named like one of
    # the macros is renamed to the bare prefix (or breaks the visibility attribute).
    macros = {values[name]: name for name in ("macro", "export_macro", "build_macro") if isinstance(values[name], str)}
    for listed in ("symbols", "exports"):
        names = values[listed]
        if isinstance(names, tuple):
            for name in names:
                if name in macros:
                    yield listed, f"'{name}' is also '{macros[name]}'; a shim or export cannot be named like a macro"


# Checks over the whole top-level table; each yields messages that name the file only.
TABLE_CHECKS: tuple[Callable[[Mapping[str, Any]], Iterator[str]], ...] = (_shims_given,)
# Checks across keys; each yields (the key to locate, message).
CROSS_KEY_CHECKS: tuple[Callable[[Mapping[str, Any]], Iterator[tuple[str, str]]], ...] = (
    _distinct_macros, _exports_are_not_shims, _names_are_not_macros)


def find_config(start: Path, explicit: Path | None = None) -> Path:
    """``explicit`` if given, else the nearest shimgen.toml from ``start`` upwards, else the nearest
    pyproject.toml holding a ``[tool.shimgen]`` table."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        return explicit
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    for directory in (start, *start.parents):
        candidate = directory / PYPROJECT_NAME
        if candidate.is_file() and _pyproject_has_table(candidate):
            return candidate
    raise ConfigError(
        f"no {CONFIG_NAME} (or pyproject.toml with [tool.shimgen]) in {start} or above; "
        "create one with 'shimgen init --prefix PREFIX' or pass -c FILE"
    )


def _pyproject_has_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return False
    return isinstance(data.get("tool"), dict) and "shimgen" in data["tool"]


def load_config(path: Path) -> Config:
    """Read and validate the config at ``path``."""
    path = Path(path)
    try:
        raw_bytes = path.read_bytes()
        text = raw_bytes.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # the parser recurses once per level of nesting
        raise ConfigError(f"{path}: invalid TOML: nested too deeply to read") from None

    table_path: tuple[str, ...] = ()
    if path.name == PYPROJECT_NAME:
        tool = document.get("tool")
        if not isinstance(tool, dict) or not isinstance(tool.get("shimgen"), dict):
            raise ConfigError(f"{path}: no [tool.shimgen] table")
        document = tool["shimgen"]
        table_path = ("tool", "shimgen")
    return parse_config(document, path=path.resolve(), text=text, table_path=table_path, raw=raw_bytes)


def parse_config(
    data: dict[str, Any],
    *,
    path: Path,
    text: str = "",
    table_path: tuple[str, ...] = (),
    raw: bytes | None = None,
) -> Config:
    """Validate an already-parsed TOML table. Pure apart from resolving paths under ``path``'s directory."""
    locate = _Locator(path, text, table_path)
    problems: list[str] = []
    root = path.parent

    def bad(name: str, message: str) -> None:
        problems.append(f"{locate(name)}: {message}")

    values = read_table(data, KEYS, subtables=SUBTABLES, bad=bad)
    problems.extend(_missing_keys(data, path))
    prefix = values["prefix"] if isinstance(values["prefix"], str) else ""
    run_checks(values, KEYS, prefix=prefix, root=root, bad=bad)
    problems.extend(f"{path}: {message}" for check in TABLE_CHECKS for message in check(values))
    for cross_check in CROSS_KEY_CHECKS:
        for name, message in cross_check(values):
            bad(name, message)
    outputs = _parse_outputs(data.get("outputs", {}), prefix, path, locate, problems)
    if problems or outputs is None:
        raise ConfigError(problems)
    values.update(_vendoring_defaults(data, values))
    digest = hashlib.sha256(raw if raw is not None else text.encode()).hexdigest()
    return Config(path=path, root=root, outputs=outputs, digest=digest, **values)


def _vendoring_defaults(data: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """A config that reads its names from objects vendors a library: AOTInductor's conventions
    (the `aoti_torch_*` pattern, `AOTI_SHIM_EXPORT`) are not its own, so the keys it leaves out
    default to its library's names instead, and its shims are exactly the names read."""
    if not (values["symbols_from"] or values["symbols_from_targets"]):
        return {}
    ident = re.sub(r"[^A-Za-z0-9_]", "_", values["library"]).upper()
    defaults = {"patterns": (), "macro": f"SHIMGEN_{ident}_PREFIX", "export_macro": f"SHIMGEN_{ident}_EXPORT", "build_macro": f"SHIMGEN_{ident}_BUILDING"}
    return {name: value for name, value in defaults.items() if name not in data}


def _missing_keys(data: Mapping[str, Any], path: Path) -> Iterator[str]:
    for name, spec in KEYS.items():
        if spec.required and name not in data:
            yield f"{path}: missing required key '{name}' (for example: {name} = {spec.example})"


def _parse_outputs(table: Any, prefix: str, path: Path, locate: _Locator, problems: list[str]) -> Outputs | None:
    root = path.parent
    if not isinstance(table, dict):
        problems.append(f"{locate('outputs')}: [outputs] must be a table")
        return None

    def bad(name: str, message: str) -> None:
        problems.append(f"{locate(name, 'outputs')}: {message}")

    values = read_table(table, OUTPUT_KEYS, table_name="outputs", bad=bad)
    run_checks(values, OUTPUT_KEYS, table_name="outputs", prefix=prefix, root=root, bad=bad)
    files = {kind: name for kind, name in values.items() if kind != "dir" and name}
    names = list(files.values())
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"{locate('outputs')}: two outputs are both named '{name}'")
    if "\0" in values["dir"]:  # reported above; resolve() would raise on it
        return None
    directory = (root / values["dir"]).resolve()
    for kind, name in sorted(files.items()):
        if directory / name == path.resolve():
            problems.append(f"{locate(kind, 'outputs')}: '{name}' in '{values['dir']}' is the config file "
                            "itself; generating would overwrite it (choose another name or directory)")
    return Outputs(dir=directory, files=files)


def with_overrides(config: Config, *, output_dir: Path | None = None) -> Config:
    """A copy of ``config`` with its output directory replaced (``-o DIR`` on the command line)."""
    if output_dir is None:
        return config
    return replace(config, outputs=Outputs(dir=output_dir.resolve(), files=dict(config.outputs.files)))


def _escapes(root: Path, relative: str) -> bool:
    candidate = Path(relative)
    if candidate.is_absolute():
        return True
    # Resolve up to the first glob character; symlinks that point outside count as escaping.
    parts = []
    for part in candidate.parts:
        if _GLOB_CHARS & set(part):
            break
        parts.append(part)
    return not is_within(root.joinpath(*parts) if parts else root, root)


class _Locator:
    """Turns a key into 'file:line: key' by scanning the TOML text (tomllib keeps no positions)."""

    def __init__(self, path: Path, text: str, table_path: tuple[str, ...]) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.base = ".".join(table_path)

    def __call__(self, key: str, table: str = "") -> str:
        wanted = ".".join(p for p in (self.base, table) if p)
        current = ""
        key_re = re.compile(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=")
        header_re = re.compile(r"\s*\[\s*([^\]]+?)\s*\]")
        for number, line in enumerate(self.lines, start=1):
            header = header_re.match(line)
            if header and not line.lstrip().startswith("[["):
                current = header.group(1).replace(" ", "")
                if table and current == wanted and key == table:
                    return f"{self.path}:{number}: {key}"
                continue
            if current == wanted and key_re.match(line):
                name = f"{table}.{key}" if table and key != table else key
                return f"{self.path}:{number}: {name}"
        name = f"{table}.{key}" if table and key != table else key
        return f"{self.path}: {name}"
