"""Clobber lint: where a #define rename would rewrite something that is not the symbol.

``#define compress zz_compress`` rewrites every token spelled ``compress``: a struct member
(libssh2's ``flags.compress`` under zlib's Z_PREFIX), a parameter, a local, a macro parameter, a
tag. The lint scans sources with the header scanner's tokenizer (``shimgen.project.headers``) and
reports each such use, plus rename targets that are C/C++ keywords or standard-library names.
Pure over text (``lint_text``); ``lint_files`` is the I/O edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import InputError
from shimgen.project.headers import Token, split_source

KEYWORDS = frozenset(["auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq", "typeof"])

# Names the C standard library (and POSIX's most common) declares or defines as macros.
STANDARD_NAMES = frozenset(["errno", "assert", "abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc", "div", "exit", "free", "getenv", "labs", "ldiv", "malloc", "qsort", "rand", "realloc", "srand", "strtod", "strtol", "strtoul", "system", "memchr", "memcmp", "memcpy", "memmove", "memset", "strcat", "strchr", "strcmp", "strcoll", "strcpy", "strcspn", "strerror", "strlen", "strncat", "strncmp", "strncpy", "strpbrk", "strrchr", "strspn", "strstr", "strtok", "strxfrm", "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "scanf", "fscanf", "sscanf", "fopen", "fclose", "fread", "fwrite", "fflush", "fgets", "fputs", "fgetc", "fputc", "getc", "putc", "getchar", "putchar", "puts", "gets", "fseek", "ftell", "rewind", "remove", "rename", "tmpfile", "perror", "feof", "ferror", "clearerr", "setvbuf", "setbuf", "stdin", "stdout", "stderr", "time", "clock", "difftime", "mktime", "asctime", "ctime", "gmtime", "localtime", "strftime", "signal", "raise", "setjmp", "longjmp", "isalpha", "isdigit", "isalnum", "isspace", "isupper", "islower", "toupper", "tolower", "sqrt", "pow", "exp", "log", "log10", "sin", "cos", "tan", "floor", "ceil", "fabs", "fmod", "read", "write", "open", "close", "stat", "fstat", "lseek", "unlink", "access", "pipe", "fork", "dup", "dup2", "mmap", "munmap", "select", "poll", "socket", "bind", "listen", "accept", "connect", "send", "recv", "index", "random", "optarg", "optind", "environ", "offsetof", "NULL", "EOF", "FILE", "size_t", "ptrdiff_t", "wchar_t", "va_list", "va_start", "va_end", "va_arg"])

SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".inc", ".S")

_NOT_A_TYPE = KEYWORDS - {"char", "const", "double", "float", "int", "long", "short", "signed", "unsigned",
                          "void", "volatile", "restrict", "struct", "union", "enum", "_Bool", "bool",
                          "static", "register", "auto", "extern", "inline", "_Atomic"}
_DEFINE = re.compile(r"define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?")


@dataclass(frozen=True)
class Clobber:
    file: str
    line: int
    name: str
    kind: str
    hint: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file  # config-level: no line
        return f"{where}: {self.name}: used as {self.kind}; {self.hint}"


def _hint(mode: str) -> str:
    if mode == "define":
        return ("a #define rename rewrites it too: rename it in the source, take the name out with 'exclude', "
                "or use rename = \"pragma\"")
    return "harmless where the pragma applies (GCC, Clang); a #define rename (other compilers) would rewrite it"


def _self_define_hint(mode: str) -> str:
    if mode == "define":
        return ("it replaces the #define rename for every use after it, so the plain name is compiled (the "
                "prefixed symbol goes missing: SG002): use rename = \"auto\" or \"pragma\", whose "
                "#pragma redefine_extname still applies to the expanded name")
    return ("harmless where the pragma applies, if the shimgen header comes first (force-included); a #define "
            "rename (other compilers, or a header included after it) is replaced by it")


def check_names(names: Iterable[str], where: str = "config") -> list[Clobber]:
    """Rename targets that are keywords or standard-library names."""
    found = []
    for name in sorted(set(names)):
        if name in KEYWORDS:
            found.append(Clobber(where, 0, name, "a rename target that is a C/C++ keyword",
                                 "a #define of a keyword breaks every source that includes the header; exclude it"))
        elif name in STANDARD_NAMES:
            found.append(Clobber(where, 0, name, "a rename target that is a standard-library name",
                                 "renaming it redirects the C library's own name; exclude it"))
    return found


def lint_text(text: str, names: frozenset[str], file: str, mode: str = "define") -> list[Clobber]:
    """Every use in ``text`` of a name in ``names`` as something other than the symbol."""
    source = split_source(text)
    hint = _hint(mode)
    found: list[Clobber] = []
    for directive in source.directives:
        body = re.sub(r"^\s*#\s*", "", directive.text)
        match = _DEFINE.match(body)
        if not match:
            continue
        if match.group(1) in names and not match.group(2) and body[match.end():].strip() == match.group(1):
            found.append(Clobber(file, directive.line, match.group(1), "a macro defined as itself (#define X X)",
                                 _self_define_hint(mode)))
        elif match.group(1) in names:
            found.append(Clobber(file, directive.line, match.group(1), "a macro name", hint))
        for parameter in (match.group(3) or "").split(","):
            parameter = parameter.strip()
            if parameter in names:
                found.append(Clobber(file, directive.line, parameter, "a macro parameter", hint))
    found.extend(_scan_code(source.tokens(), names, file, hint))
    return sorted(found, key=lambda c: (c.line, c.name, c.kind))


def _scan_code(tokens: list[Token], names: frozenset[str], file: str, hint: str) -> list[Clobber]:
    found = []
    # A stack of open braces: 'record' for struct/union bodies, 'enum', 'scope' for namespace and
    # extern "C" bodies (file scope: no locals), 'block' for the rest.
    braces: list[str] = []
    parens = 0
    for index, token in enumerate(tokens):
        text = token.text
        if text == "{":
            braces.append(_brace_kind(tokens, index))
            continue
        if text == "}":
            if braces:
                braces.pop()
            continue
        if text == "(":
            parens += 1
        elif text == ")":
            parens = max(0, parens - 1)
        if token.kind != "ident" or text not in names:
            continue
        previous = tokens[index - 1].text if index else ""
        following = tokens[index + 1].text if index + 1 < len(tokens) else ""
        kind = None
        if previous in (".", "->"):
            kind = "a struct/union member access"
        elif previous in ("struct", "union", "enum"):
            kind = "a struct/union/enum tag"
        elif braces and braces[-1] == "record" and parens == 0:
            kind = "a struct/union member declaration"
        elif braces and braces[-1] == "enum":
            kind = "an enumerator"
        elif _declares(tokens, index) and following in ("=", ";", ",", ")", "["):
            if parens:
                kind = "a parameter name"
            elif "block" in braces and previous != "extern" and not _is_extern(tokens, index):
                kind = "a local identifier"
        if kind:
            found.append(Clobber(file, token.line, text, kind, hint))
    return found


def _brace_kind(tokens: list[Token], index: int) -> str:
    """What the '{' at ``index`` opens: struct/union body, enum body, a namespace or extern "C"
    body, or any other block."""
    if index >= 2 and tokens[index - 2].text == "extern" and tokens[index - 1].kind == "string":
        return "scope"
    for back in range(index - 1, max(-1, index - 4), -1):
        text = tokens[back].text
        if text in ("struct", "union", "class"):
            return "record"
        if text == "enum":
            return "enum"
        if text == "namespace":
            return "scope"
        if tokens[back].kind != "ident":
            break
    return "block"


def _is_extern(tokens: list[Token], index: int) -> bool:
    """An ``extern`` declaration (``extern const T name;``): a declaration of the symbol itself."""
    for back in range(index - 1, -1, -1):
        if tokens[back].text in (";", "{", "}"):
            return False
        if tokens[back].text == "extern":
            return True
    return False


def _declares(tokens: list[Token], index: int) -> bool:
    """Whether the name at ``index`` is declared: preceded, back to the statement or parameter start,
    only by type-like tokens (identifiers that are not statement keywords, '*', '&')."""
    seen_type = False
    for back in range(index - 1, -1, -1):
        token = tokens[back]
        if token.text in (";", "{", "}", "(", ","):
            return seen_type
        if token.text in ("*", "&"):
            continue
        if token.kind != "ident" or token.text in _NOT_A_TYPE:
            return False
        seen_type = True
    return seen_type


def source_files(paths: Sequence[Path]) -> list[Path]:
    """Files named, and C/C++/assembly sources under directories named, sorted."""
    files: set[Path] = set()
    for path in paths:
        if path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)
        elif path.is_file():
            files.add(path)
        else:
            raise InputError(f"{path}: no such file or directory")
    return sorted(files)


def lint_files(files: Sequence[Path], names: Iterable[str], *, root: Path, mode: str = "define") -> list[Clobber]:
    wanted = frozenset(names)
    found: list[Clobber] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        try:
            shown = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            shown = str(path)
        found.extend(lint_text(text, wanted, shown, mode))
    return found
