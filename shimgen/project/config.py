"""The one config: find it, read it, validate every key, and return a frozen ``Config``.

Policy as data: ``KEYS`` and ``OUTPUT_KEYS`` list every accepted key with its default and its
documentation; validation is generic code over them. Every problem is collected and reported at
once, each naming the file, the key and (where it can be found) the line.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from shimgen.errors import ConfigError
from shimgen.files import is_within

CONFIG_NAME = "shimgen.toml"
PYPROJECT_NAME = "pyproject.toml"
MAX_PREFIX_LENGTH = 64

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class KeySpec:
    kind: str  # "str", "list", "bool"
    default: Any
    doc: str


KEYS: dict[str, KeySpec] = {
    "prefix": KeySpec("str", None, "Required. Prepended to every shim name, e.g. 'executorch_'."),
    "macro": KeySpec("str", "AOTI_SHIM_SYMBOL_PREFIX", "Compile definition that carries the prefix."),
    "export_macro": KeySpec("str", "AOTI_SHIM_EXPORT", "Macro that marks exported shim declarations."),
    "build_macro": KeySpec(
        "str", "AOTI_SHIM_BUILDING", "Defined while building the shim library (dllexport vs dllimport)."
    ),
    "library": KeySpec("str", "shimgen_runtime", "Library name written into the Windows .def file."),
    "patterns": KeySpec("list", ["aoti_torch_*"], "Globs: which names are shims when seen in a binary."),
    "symbols": KeySpec("list", [], "Explicit shim names."),
    "headers": KeySpec("list", [], "Globs of headers scanned for declarations carrying export_macro."),
    "required": KeySpec("list", None, "Names or globs that must be present in built artifacts (default: all)."),
    "allow": KeySpec("list", [], "Globs of other exports permitted by strict checking."),
    "exports": KeySpec("list", [], "Non-shim names the library exports too (added to the linker export lists)."),
    "symbols_from": KeySpec("list", [], "Globs of objects, static archives or shared libraries: every defined "
                            "global symbol they hold joins the rename set (see docs/vendoring.md)."),
    "exclude": KeySpec("list", [], "Globs of names taken out of the set read through symbols_from."),
    "lint_sources": KeySpec("list", [], "Globs of sources 'shimgen lint' scans for clobbered spellings of renamed names."),
    "rename": KeySpec("str", "define", "How export.h renames: 'define' (#define), 'pragma' (#pragma "
                      "redefine_extname), or 'auto' (pragma on GCC/Clang, #define elsewhere)."),
}

RENAME_MODES = ("define", "pragma", "auto")

OUTPUT_KEYS: dict[str, KeySpec] = {
    "dir": KeySpec("str", "generated", "Output directory, relative to the config file."),
    "header": KeySpec("str|false", "export.h", "Macro renames and the export macro."),
    "cmake": KeySpec("str|false", "shimgen.cmake", "CMake fragment: prefix, definition, INTERFACE target."),
    "bzl": KeySpec("str|false", "shimgen.bzl", "Bazel/Buck constants and helpers."),
    "version_script": KeySpec("str|false", "shimgen.map", "ELF version script exporting the prefixed names."),
    "exported_symbols": KeySpec("str|false", "shimgen.exp", "Mach-O exported-symbols list."),
    "def": KeySpec("str|false", "shimgen.def", "Windows module-definition file."),
    "keep": KeySpec("str|false", "shimgen_keep.c", "Translation unit referencing every required shim."),
    "asm_header": KeySpec("str|false", False, "Renames for assembly sources (GAS .S; ELF and Mach-O spellings)."),
    "manifest": KeySpec("str|false", "manifest.json", "Machine-readable description the checker reads."),
}


@dataclass(frozen=True)
class Outputs:
    dir: Path
    """Absolute output directory."""
    files: dict[str, str]
    """Enabled outputs: output kind (a key of OUTPUT_KEYS but 'dir') to file name inside ``dir``."""

    def path(self, kind: str) -> Path | None:
        name = self.files.get(kind)
        return self.dir / name if name else None


@dataclass(frozen=True)
class Config:
    path: Path
    """The config file (shimgen.toml or pyproject.toml)."""
    root: Path
    """Its directory: relative paths resolve here and may not leave it."""
    prefix: str
    macro: str
    export_macro: str
    build_macro: str
    library: str
    patterns: tuple[str, ...]
    symbols: tuple[str, ...]
    headers: tuple[str, ...]
    required: tuple[str, ...] | None
    allow: tuple[str, ...]
    exports: tuple[str, ...]
    outputs: Outputs
    digest: str
    """sha256 of the config file's bytes, recorded in the manifest."""
    symbols_from: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    rename: str = "define"
    lint_sources: tuple[str, ...] = ()

    @property
    def display_name(self) -> str:
        """The config's name as written into generated banners: no absolute paths."""
        return self.path.name


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
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
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
    problems: list[str] = []
    locate = _Locator(path, text, table_path)

    def bad(key: str, message: str, table: str = "") -> None:
        problems.append(f"{locate(key, table)}: {message}")

    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "outputs":
            continue
        spec = KEYS.get(key)
        if spec is None:
            bad(key, f"unknown key '{key}'{_did_you_mean(key, [*KEYS, 'outputs'])}")
            continue
        values[key] = _check_type(key, value, spec, bad)

    if "prefix" not in data:
        problems.append(f"{path}: missing required key 'prefix' (for example: prefix = \"executorch_\")")

    merged = {k: (values[k] if values.get(k) is not None else spec.default) for k, spec in KEYS.items()}
    if "required" in values:
        merged["required"] = values["required"]

    prefix = merged["prefix"]
    if isinstance(prefix, str):
        reason = prefix_problem(prefix)
        if reason:
            bad("prefix", reason)
    for key in ("macro", "export_macro", "build_macro"):
        name = merged[key]
        if isinstance(name, str) and (not _IDENT.match(name) or _reserved(name)):
            bad(key, f"'{name}' is not a valid, unreserved C macro name")
    if isinstance(merged["library"], str) and not re.fullmatch(r"[A-Za-z0-9_.+-]+", merged["library"]):
        bad("library", f"'{merged['library']}' is not a valid library name")

    symbols = merged["symbols"] or []
    seen: set[str] = set()
    for name in symbols:
        if not isinstance(name, str):
            continue
        if not _IDENT.match(name):
            bad("symbols", f"'{name}' is not a C identifier")
        elif name in seen:
            bad("symbols", f"'{name}' is listed twice")
        elif isinstance(prefix, str) and prefix and name.startswith(prefix):
            bad("symbols", f"'{name}' already carries the prefix '{prefix}'; list the plain name")
        seen.add(name)
    if isinstance(prefix, str) and prefix:
        for name in seen:
            if prefix + name in seen:
                bad("symbols", f"prefixed name '{prefix + name}' collides with the declared name '{prefix + name}'")
    for key in ("patterns", "allow", "exports", "required"):
        for item in merged[key] or []:
            if isinstance(item, str) and not item:
                bad(key, "empty string in list")
    for name in merged["exports"] or []:
        if isinstance(name, str) and name and not _IDENT.match(name):
            bad("exports", f"'{name}' is not a C identifier")
    if not (merged["symbols"] or merged["headers"] or merged["symbols_from"]):
        problems.append(f"{path}: give the shims with 'symbols', 'headers', 'symbols_from', or several")
    if isinstance(merged["rename"], str) and merged["rename"] not in RENAME_MODES:
        bad("rename", f"'{merged['rename']}' is not one of {', '.join(RENAME_MODES)}")

    root = path.parent
    for key in ("headers", "symbols_from", "lint_sources"):
        for pattern in merged[key] or []:
            if isinstance(pattern, str) and _escapes(root, pattern):
                bad(key, f"'{pattern}' leaves the project directory {root}")

    outputs = _parse_outputs(data.get("outputs", {}), root, locate, problems)

    if problems:
        raise ConfigError(problems)
    return Config(
        path=path,
        root=root,
        prefix=prefix,
        macro=merged["macro"],
        export_macro=merged["export_macro"],
        build_macro=merged["build_macro"],
        library=merged["library"],
        patterns=tuple(merged["patterns"]),
        symbols=tuple(symbols),
        headers=tuple(merged["headers"]),
        required=None if merged["required"] is None else tuple(merged["required"]),
        allow=tuple(merged["allow"]),
        exports=tuple(merged["exports"]),
        outputs=outputs,  # type: ignore[arg-type]
        symbols_from=tuple(merged["symbols_from"]),
        exclude=tuple(merged["exclude"]),
        rename=merged["rename"],
        lint_sources=tuple(merged["lint_sources"]),
        digest=hashlib.sha256(raw if raw is not None else text.encode()).hexdigest(),
    )


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot be a symbol prefix, or None when it can."""
    if not prefix:
        return "the prefix is empty"
    if len(prefix) > MAX_PREFIX_LENGTH:
        return f"the prefix is {len(prefix)} characters long; at most {MAX_PREFIX_LENGTH} are accepted"
    if not _PREFIX.match(prefix):
        return f"'{prefix}' is not a valid C identifier fragment (letters, digits, '_'; no leading digit)"
    if _reserved(prefix):
        return f"'{prefix}' is reserved in C and C++ (names starting with '__' or '_' + capital)"
    return None


def with_overrides(config: Config, *, output_dir: Path | None = None) -> Config:
    """A copy of ``config`` with its output directory replaced (``-o DIR`` on the command line)."""
    if output_dir is None:
        return config
    outputs = Outputs(dir=output_dir.resolve(), files=dict(config.outputs.files))
    return Config(**{**config.__dict__, "outputs": outputs})


def _reserved(name: str) -> bool:
    return name.startswith("__") or (len(name) > 1 and name[0] == "_" and name[1].isupper())


def _check_type(key: str, value: Any, spec: KeySpec, bad: Any) -> Any:
    if spec.kind == "str":
        if not isinstance(value, str):
            bad(key, f"must be a string, not {type(value).__name__}")
            return None
        return value
    if spec.kind == "list":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            bad(key, "must be a list of strings")
            return None
        return value
    raise AssertionError(spec.kind)


def _parse_outputs(table: Any, root: Path, locate: "_Locator", problems: list[str]) -> Outputs | None:
    if not isinstance(table, dict):
        problems.append(f"{locate('outputs')}: [outputs] must be a table")
        return None
    directory = OUTPUT_KEYS["dir"].default
    files = {k: spec.default for k, spec in OUTPUT_KEYS.items() if k != "dir"}
    for key, value in table.items():
        where = locate(key, "outputs")
        if key not in OUTPUT_KEYS:
            problems.append(f"{where}: unknown key 'outputs.{key}'{_did_you_mean(key, list(OUTPUT_KEYS))}")
            continue
        if key == "dir":
            if not isinstance(value, str) or not value:
                problems.append(f"{where}: 'outputs.dir' must be a non-empty string")
                continue
            directory = value
            continue
        if value is False:
            files[key] = None
        elif isinstance(value, str) and value and "/" not in value and "\\" not in value and value not in (".", ".."):
            files[key] = value
        else:
            problems.append(f"{where}: 'outputs.{key}' must be a plain file name or false")
    if _escapes(root, directory):
        problems.append(f"{locate('dir', 'outputs')}: 'outputs.dir' = '{directory}' leaves the project directory {root}")
    names = [name for name in files.values() if name]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"{locate('outputs')}: two outputs are both named '{name}'")
    return Outputs(dir=(root / directory).resolve(), files={k: v for k, v in files.items() if v})


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


def _did_you_mean(key: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(key, choices, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


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
