"""What a C name and a symbol prefix may look like: the one home of these rules.

Free of heavy imports, so check-symbols can validate ``--prefix`` without loading the config module.
"""

from __future__ import annotations

MAX_PREFIX_LENGTH = 64
"""Longer prefixes are refused: they only make symbol tables longer, and hint at a mistake."""


def is_identifier(text: str) -> bool:
    """``text`` is a C identifier (ASCII letters, digits, '_'; no leading digit). String methods, not
    a regular expression: the check of a binary imports no ``re``."""
    return text.isascii() and text.isidentifier()


def is_reserved(name: str) -> bool:
    """Reserved in C and C++: starts with '__', or with '_' and a capital."""
    return name.startswith("__") or (len(name) > 1 and name[0] == "_" and name[1].isupper())


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot be a symbol prefix, or None when it can."""
    if not prefix:
        return "the prefix is empty"
    if len(prefix) > MAX_PREFIX_LENGTH:
        return f"the prefix is {len(prefix)} characters long; at most {MAX_PREFIX_LENGTH} are accepted"
    if not is_identifier(prefix):
        return f"'{prefix}' is not a valid C identifier fragment (letters, digits, '_'; no leading digit)"
    if is_reserved(prefix):
        return f"'{prefix}' is reserved in C and C++ (names starting with '__' or '_' + capital)"
    return None


KEYWORDS = frozenset({
    "alignas", "alignof", "auto", "bool", "break", "case", "char", "const", "constexpr", "continue",
    "default", "do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline",
    "int", "long", "nullptr", "register", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "struct", "switch", "thread_local", "true", "typedef", "typeof", "typeof_unqual",
    "union", "unsigned", "void", "volatile", "while", "and", "and_eq", "asm", "bitand", "bitor", "catch",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "consteval", "constinit", "const_cast",
    "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export",
    "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq",
    "private", "protected", "public", "reinterpret_cast", "requires", "static_cast", "template", "this",
    "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq", "defined",
    # C11-C23 keywords spelled with an underscore and a capital.
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal32", "_Decimal64",
    "_Decimal128", "_Generic", "_Imaginary", "_Noreturn", "_Pragma", "_Static_assert", "_Thread_local",
    # Compiler keywords (GCC, Clang, MSVC) and the preprocessor's own names.
    "__attribute__", "__attribute", "__asm__", "__asm", "__inline__", "__inline", "__restrict__",
    "__restrict", "__typeof__", "__typeof", "__extension__", "__declspec", "__int128", "__thread",
    "__volatile__", "__const__", "__signed__", "__alignof__", "__auto_type", "__label__", "__real__",
    "__imag__", "__builtin_va_list", "__cdecl", "__stdcall", "__VA_ARGS__", "__VA_OPT__",
    "__has_include", "__has_attribute", "__has_builtin", "__FILE__", "__LINE__", "__func__", "__cplusplus",
})
"""C (C23) and C++ (C++20) keywords and alternative tokens, the compilers' own keywords, and the
preprocessor's ``defined`` and predefined names: none can name a function, nor be ``#define``d by
a generated header without breaking every file that includes it."""

GENERATED_MACRO_PREFIX = "SHIMGEN_"
"""The generated headers' own macros (``SHIMGEN_CONCAT_``, ``SHIMGEN_PREFIXED_NAME``, the include
guards) start so: a shim or macro of that name would redefine one of them."""

STANDARD_NAMES = frozenset({
    "main", "NULL", "errno", "assert", "offsetof", "setjmp", "longjmp", "va_start", "va_arg", "va_end",
    "va_copy", "EOF", "stdin", "stdout", "stderr",
})
"""Names the C and C++ standards give to the program's entry point or to standard macros: a shim
or macro by one of these names would be renamed or redefined under every includer."""


def reserved_word_problem(name: str) -> str | None:
    """Why ``name`` cannot be a symbol or macro name although it is an identifier, or None."""
    if name in KEYWORDS:
        return f"'{name}' is a C or C++ keyword"
    if name in STANDARD_NAMES:
        return f"'{name}' is a name the C standard gives to {'the entry point' if name == 'main' else 'its library'}"
    if name.startswith(GENERATED_MACRO_PREFIX):
        return f"'{name}' starts with {GENERATED_MACRO_PREFIX}, which the generated headers' own macros use"
    return None
