"""Find the declarations a header marks with the export macro.

A C preprocessor would pick one branch of each ``#if``; a shim set must hold the names of every
branch (a CUDA-only shim is still a shim of the library). So this scanner does not preprocess: it
tokenizes the header (comments, strings and line continuations handled), drops preprocessor
directive lines (which keeps the code of all branches), and splits the rest into top-level
declarations. A declaration is a shim when it contains the export-macro token; its name is the
declarator's identifier: the last identifier at the outermost parenthesis level that is followed by
a parameter list, skipping attribute spellings, so macros in return types
(``RET(int) name(...)``) and function-pointer parameters (``void (*cb)(int)``) do not confuse it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import ConfigError

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
  | (?P<punct>::|->|\.\.\.|[^\sA-Za-z0-9_])
    """,
    re.VERBOSE | re.DOTALL,
)

# Identifiers followed by '(...)' that are never the declared name.
_NOT_A_NAME = frozenset(
    {
        "__attribute__",
        "__attribute",
        "__declspec",
        "__asm__",
        "__asm",
        "asm",
        "alignas",
        "_Alignas",
        "noexcept",
        "throw",
        "decltype",
        "__typeof__",
        "typeof",
        "sizeof",
        "_Static_assert",
        "static_assert",
        # Keywords and built-in types: 'void (*name(void))(int)' must not yield 'void'.
        "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
        "bool", "_Bool", "const", "volatile", "restrict", "__restrict", "__restrict__",
        "struct", "union", "enum", "extern", "static", "inline", "__inline__", "return",
        "if", "while", "for", "switch", "auto", "register",
    }
)


@dataclass(frozen=True)
class Declaration:
    name: str
    file: Path
    line: int
    signature: str = ""
    """The declaration's tokens, export macro and parameter names dropped, joined by spaces: two
    declarations of one name with different signatures are two different functions."""


@dataclass(frozen=True)
class Token:
    kind: str
    """ident, number, string, punct."""
    text: str
    line: int


@dataclass(frozen=True)
class Directive:
    """One preprocessor directive, continuation lines joined (``#define M(a, b) ...``)."""

    line: int
    text: str


@dataclass(frozen=True)
class Source:
    """A C/C++ source split for token scans: ``code`` holds every line that is not a directive
    (directive lines and ``#if 0`` sections blanked, so line numbers stay), ``directives`` the rest."""

    code: str
    directives: tuple[Directive, ...]

    def tokens(self) -> list[Token]:
        return tokenize(self.code)


def scan_header(path: Path, export_macro: str) -> list[Declaration]:
    """Every declaration in ``path`` that carries ``export_macro``, in file order."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read header: {exc.strerror or exc}") from None
    return scan_text(text, export_macro, path)


def scan_text(text: str, export_macro: str, path: Path = Path("<string>")) -> list[Declaration]:
    tokens = split_source(text).tokens()
    found: list[Declaration] = []
    for statement in _statements(tokens):
        if not any(t.kind == "ident" and t.text == export_macro for t in statement):
            continue
        if statement[0].text in ("typedef", "using"):
            continue
        name = _declarator_name(statement, export_macro)
        if name is not None:
            found.append(Declaration(name.text, path, name.line, _signature(statement, export_macro)))
    return found


def exported_statements(text: str, export_macro: str) -> list[tuple[str, list[Token]]]:
    """``(name, tokens)`` of every function declaration carrying ``export_macro``, in file order:
    the same statements ``scan_text`` names, with their tokens (for generators that re-emit them)."""
    found: list[tuple[str, list[Token]]] = []
    for statement in _statements(split_source(text).tokens()):
        if statement[0].text in ("typedef", "using"):
            continue
        if not any(t.kind == "ident" and t.text == export_macro for t in statement):
            continue
        name = _declarator_name(statement, export_macro)
        if name is not None:
            found.append((name.text, statement))
    return found


def macro_definition_lines(path: Path, macro: str) -> list[int]:
    """The lines of ``path`` that ``#define macro`` (any branch: the scanner does not preprocess)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read header: {exc.strerror or exc}") from None
    pattern = re.compile(rf"define\s+{re.escape(macro)}\b")
    return [d.line for d in split_source(text).directives if pattern.match(re.sub(r"^#\s*", "", d.text))]


def include_names(path: Path) -> list[str]:
    """The file names ``path`` includes (``#include "x"`` and ``#include <x>``), in order."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read header: {exc.strerror or exc}") from None
    pattern = re.compile(r'include\s*[<"]([^>"\n]+)[>"]')
    names = []
    for directive in split_source(text).directives:
        match = pattern.match(re.sub(r"^#\s*", "", directive.text))
        if match and ".." not in match.group(1).split("/"):
            names.append(match.group(1))
    return names


def _signature(statement: list[Token], export_macro: str) -> str:
    """``statement`` as a comparable string: without the export macro, leading ``extern``, and the
    parameter names (the last identifier of a parameter of two or more tokens), which do not change
    the function."""
    kept: list[str] = []
    parameter: list[Token] = []
    depth = 0

    def close_parameter() -> None:
        last = parameter[-1] if parameter else None
        drop = len(parameter) > 1 and last is not None and last.kind == "ident" and last.text not in _NOT_A_NAME
        kept.extend(t.text for t in (parameter[:-1] if drop else parameter))
        parameter.clear()

    for token in statement:
        if token.text == export_macro or (not kept and token.text == "extern"):
            continue
        if depth == 1 and token.text in (",", ")"):
            close_parameter()
            kept.append(token.text)
            depth -= token.text == ")"
            continue
        if depth >= 1:
            parameter.append(token)
        else:
            kept.append(token.text)
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            depth -= 1
    return " ".join(kept)


def split_source(text: str) -> Source:
    """Blank out preprocessor lines (with their continuations), keeping line numbers, and keep
    the directives (outside ``#if 0`` sections) apart."""
    text = text.replace("\r\n", "\n")
    out: list[str] = []
    directives: list[Directive] = []
    pending: list[str] = []  # the lines of the directive being read, while it is live
    pending_line = 0
    live = False
    in_directive = False
    in_block_comment = False
    # '#if 0' sections are dead in every configuration: skip them like comments. Depth counts
    # nested conditionals inside the dead section so its own '#endif' does not end it.
    dead_depth = 0
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        if in_directive or (not in_block_comment and stripped.startswith("#")):
            directive = re.sub(r"^#\s*", "", stripped)
            keyword = directive.split(None, 1)[0] if directive else ""
            if not in_directive:
                live, pending, pending_line = not dead_depth, [], number
                if dead_depth:
                    if keyword.startswith("if"):
                        dead_depth += 1
                    elif keyword == "endif" or (dead_depth == 1 and keyword in ("else", "elif")):
                        dead_depth -= 1
                elif re.fullmatch(r"if\s+0\s*(//.*|/\*.*)?", directive):
                    dead_depth = 1
            in_directive = line.rstrip().endswith("\\")
            if live:
                pending.append(line.rstrip()[:-1] if in_directive else line)
                if not in_directive:
                    directives.append(Directive(pending_line, " ".join(pending).strip()))
            out.append("")
            continue
        if dead_depth:
            out.append("")
            continue
        # Track block comments so a '#' inside one is not taken for a directive.
        position = 0
        while True:
            if in_block_comment:
                end = line.find("*/", position)
                if end < 0:
                    break
                in_block_comment = False
                position = end + 2
            else:
                start = line.find("/*", position)
                line_comment = line.find("//", position)
                if start < 0 or (0 <= line_comment < start):
                    break
                in_block_comment = True
                position = start + 2
        out.append(line)
    return Source("\n".join(out).replace("\\\n", " \n"), tuple(directives))


def tokenize(text: str, first_line: int = 1) -> list[Token]:
    """C/C++ tokens of ``text`` (comments and whitespace dropped), each with its line number."""
    tokens: list[Token] = []
    line = first_line
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "punct"
        value = match.group()
        if kind not in ("ws", "comment"):
            tokens.append(Token(kind, value, line))
        line += value.count("\n")
    return tokens


def _statements(tokens: list[Token]) -> list[list[Token]]:
    """Split into top-level declarations: at ';' outside parentheses, or at a '{...}' body.

    ``extern "C" {`` and ``namespace x {`` open scopes whose contents are scanned as top level.
    """
    statements: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            depth = max(0, depth - 1)
        if depth == 0 and token.text == "{":
            if _opens_scope(current):
                current = []
                index += 1
                continue
            # A function body or an aggregate: the declaration ends here; skip the braces.
            statements.append(current)
            current = []
            index = _skip_braces(tokens, index)
            # '= {...};' or 'struct x {...} y;' continue to the ';', which closes nothing new.
            if index < len(tokens) and tokens[index].text == ";":
                index += 1
            continue
        if depth == 0 and token.text == "}":
            # End of an extern "C" / namespace scope.
            if current:
                statements.append(current)
            current = []
            index += 1
            continue
        if depth == 0 and token.text == ";":
            if current:
                statements.append(current)
            current = []
            index += 1
            continue
        current.append(token)
        index += 1
    if current:
        statements.append(current)
    return [s for s in statements if s]


def _opens_scope(prefix: list[Token]) -> bool:
    texts = [t.text for t in prefix]
    if len(texts) == 2 and texts[0] == "extern" and prefix[1].kind == "string":
        return True
    return bool(texts) and texts[0] in ("namespace", "inline") and "namespace" in texts[:2]


def _skip_braces(tokens: list[Token], index: int) -> int:
    depth = 0
    while index < len(tokens):
        if tokens[index].text == "{":
            depth += 1
        elif tokens[index].text == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index


def _declarator_name(statement: list[Token], export_macro: str) -> Token | None:
    # Cut an initializer ('= value') so its identifiers are not taken for the name.
    depth = 0
    for position, token in enumerate(statement):
        if token.text in ("(", "["):
            depth += 1
        elif token.text in (")", "]"):
            depth -= 1
        elif token.text == "=" and depth == 0:
            statement = statement[:position]
            break
    for level in range(4):
        candidate = _last_called_ident(statement, level, export_macro)
        if candidate is not None:
            return candidate
    # A variable: the last identifier at the outermost level.
    idents = [t for t in _at_level(statement, 0) if t.kind == "ident" and t.text != export_macro]
    return idents[-1] if idents else None


def _at_level(statement: list[Token], level: int) -> list[Token]:
    depth = 0
    picked: list[Token] = []
    for token in statement:
        if token.text in ("(", "["):
            if depth == level:
                picked.append(token)
            depth += 1
            continue
        if token.text in (")", "]"):
            depth -= 1
            continue
        if depth == level:
            picked.append(token)
    return picked


def _last_called_ident(statement: list[Token], level: int, export_macro: str) -> Token | None:
    """The last identifier at parenthesis depth ``level`` immediately followed by '('."""
    depth = 0
    best: Token | None = None
    for position, token in enumerate(statement[:-1]):
        if token.text in ("(", "["):
            depth += 1
            continue
        if token.text in (")", "]"):
            depth -= 1
            continue
        if (
            depth == level
            and token.kind == "ident"
            and statement[position + 1].text == "("
            and token.text not in _NOT_A_NAME
            and token.text != export_macro
            and not _is_macro_call_in_type(statement, position)
        ):
            best = token
    return best


def _is_macro_call_in_type(statement: list[Token], position: int) -> bool:
    """True when 'X(...)' at ``position`` is followed by more declarator: a macro in the type."""
    depth = 0
    for index in range(position + 1, len(statement)):
        text = statement[index].text
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
            if depth == 0:
                # 'RET(int) name(args)': more declarator (an identifier) follows at this level.
                # Attributes after the parameter list ('__attribute__((x(...)))') do not count.
                rest = _at_level(statement[index + 1 :], 0)
                return any(t.kind == "ident" and t.text not in _NOT_A_NAME for t in rest)
    return False
