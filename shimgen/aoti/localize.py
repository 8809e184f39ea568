"""Keep a model's private copy of the C++ runtime private: the localize step of ``prefix-imports``.

A CUDA AOTInductor model (torch 2.11, ``link_libtorch=False``) links libstdc++ and libgcc statically
and *exports* them: 4,853 of its 4,998 dynamic symbols are ``std::``, ``__cxa_*``, ``__gxx_*`` and
friends. ELF resolves the model's own references to those names through its GOT like any import, so
which copy each call reaches depends on what the process loaded first: with the system
``libstdc++.so.6`` already loaded (numpy, LIEF, torch all load it), half of a ``std::regex`` runs on
the model's copy and half on the system's, and the two disagree on their private state (facet ids,
``locale::classic``, type layouts of another GCC). ``STB_GNU_UNIQUE`` symbols go further: glibc
unifies them process-wide, ignoring ``RTLD_LOCAL`` and ``RTLD_DEEPBIND``, so a model loaded first can
even capture the system library's own references.

The fix, applied to the binary so that it holds under any loader: every defined dynamic symbol of
the C++ runtime gets ``STV_HIDDEN`` visibility, and ``STB_GNU_UNIQUE`` becomes ``STB_GLOBAL``. glibc
never returns a hidden symbol from a lookup (``do_lookup_x`` skips it), and resolves a relocation
whose own symbol is hidden to the object itself without any lookup (``RESOLVE_MAP`` with
``dl_symbol_visibility_binds_local_p``): the model binds its own copy, and nobody else can bind it.
The symbols stay in ``.dynsym`` (relocations refer to them by index), so the file layout is unchanged.

``is_cxx_runtime`` (pure, over mangled names) decides what belongs to the C++ runtime; it is tested
against the real ``libstdc++.so.6`` and ``libgcc_s.so.1`` export lists. The model's own API
(``AOTInductorModelContainer*``) and any other export are left alone, with one exception: every
other ``STB_GNU_UNIQUE`` export is made private the same way. Those are header-defined inline
variables (a CPU model exports ``inductor_cpu_integer_div_error_flag``): unified process-wide, two
models would share one flag, and glibc never unloads a library that defines a bound unique symbol,
so without this every ``shimgen_model_close`` left the model mapped, with its static objects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Namespaces of the C++ runtime, as the first component of a mangled name: std (St) and its
# standard abbreviations (Sa allocator, Sb basic_string, Ss string, Si istream, So ostream,
# Sd iostream), and libstdc++'s own namespaces (__gnu_cxx, __cxxabiv1, __gnu_debug, __gnu_norm,
# __gnu_parallel).
_NAMESPACE = re.compile(r"(?:St|Sa|Sb|Ss|Si|So|Sd|9__gnu_cxx|10__cxxabiv1|11__gnu_debug|10__gnu_norm|14__gnu_parallel)")
# Special-name prefixes that wrap another encoding: vtable/VTT/typeinfo/typeinfo name/TLS init/TLS
# wrapper, guard variable, transaction clone, reference temporary, construction vtable, thunks.
_SPECIAL = re.compile(r"T[VTISHW]|GV|GTt|GR|TC|Th n?\d+_|Tv n?\d+_n?\d+_|Tc".replace(" ", ""))
# Typeinfo (name) of a fundamental type or a pointer to one: _ZTIi, _ZTIPKc, _ZTSDn, _ZTIDF16_.
_FUNDAMENTAL = re.compile(r"T[IS][PKVr]*(?:[a-z]|D[a-zA-Z]|DF\d+_?x?)")
# Operator new/delete (nw, na, dl, da) in every overload.
_OPERATOR_NEW_DELETE = re.compile(r"(?:nw|na|dl|da)[a-zA-Z]")
# libstdc++'s transactional-memory helpers (_Z20_txnal_cow_string_D1Pv).
_TXNAL = re.compile(r"\d+_txnal_")
# C-level names of libsupc++ and libgcc (unwinder, frame registration, soft-float/int helpers).
_C_PREFIXES = ("__cxa_", "__gxx_", "_Unwind_", "__gcc_personality_v0", "__dynamic_cast", "__atomic_flag_",
               "__register_frame", "__deregister_frame", "__emutls_", "__cpu_indicator_init", "__cpu_model",
               "__once_proxy", "atomic_flag_clear_explicit", "atomic_flag_test_and_set_explicit", "__clear_cache",
               "__enable_execute_stack", "__gcclibcxx_demangle_callback")
_LIBGCC_HELPER = re.compile(
    r"__(?:abs|add|ash[lr]|bswap|clrsb|clz|cmp|ctz|div|eq|extend|ffs|fix|float|ge|gt|le|lshr|lt|mod|mul|ne|neg|"
    r"parity|popcount|powi|sub|trunc|ucmp|udiv|umod|unord)[a-z]*\d?")


def is_cxx_runtime(name: str) -> bool:
    """Whether an exported symbol belongs to the C++ runtime (libstdc++, libsupc++, libgcc)."""
    if name.startswith(_C_PREFIXES) or _LIBGCC_HELPER.fullmatch(name):
        return True
    if not name.startswith("_Z"):
        return False
    rest = name[2:]
    if _FUNDAMENTAL.fullmatch(rest) or _OPERATOR_NEW_DELETE.match(rest) or _TXNAL.match(rest):
        return True
    while True:  # peel special names and local-entity wrappers down to the entity's own encoding
        special = _SPECIAL.match(rest)
        if special is not None:
            rest = rest[special.end():]
        elif rest.startswith("Z"):
            rest = rest[1:]
        else:
            break
    if rest.startswith("N"):
        rest = re.sub(r"^N[rVKRO]*", "", rest)
    return _NAMESPACE.match(rest) is not None


@dataclass(frozen=True)
class ExportedSymbol:
    name: str
    binding: str
    """GLOBAL, WEAK or GNU_UNIQUE."""
    visibility: str
    """DEFAULT, PROTECTED, HIDDEN or INTERNAL."""


@dataclass(frozen=True)
class LocalizePlan:
    hide: tuple[str, ...]
    """C++ runtime symbols that are exported now and become hidden."""
    unique_to_global: tuple[str, ...]
    """Of those, the STB_GNU_UNIQUE ones, rebound to STB_GLOBAL."""


def plan_localize(exports: Iterable[ExportedSymbol]) -> LocalizePlan:
    """Which defined dynamic symbols to hide: the C++ runtime's and every STB_GNU_UNIQUE one,
    unless already hidden."""
    hide: list[str] = []
    unique: list[str] = []
    for symbol in exports:
        if symbol.visibility in ("HIDDEN", "INTERNAL"):
            continue
        if symbol.binding != "GNU_UNIQUE" and not is_cxx_runtime(symbol.name):
            continue
        hide.append(symbol.name)
        if symbol.binding == "GNU_UNIQUE":
            unique.append(symbol.name)
    return LocalizePlan(tuple(sorted(hide)), tuple(sorted(unique)))


def exported_symbols(binary) -> list[ExportedSymbol]:
    """The defined, non-local dynamic symbols of a LIEF ELF binary."""
    return [
        ExportedSymbol(s.name, s.binding.name, s.visibility.name)
        for s in binary.dynamic_symbols
        if s.name and s.shndx != 0 and s.binding.name != "LOCAL"
    ]


def apply_localize(binary, plan: LocalizePlan) -> int:
    """Hides the planned symbols in a LIEF ELF binary (in memory); returns how many were changed."""
    import lief

    hide = set(plan.hide)
    changed = 0
    for symbol in binary.dynamic_symbols:
        if symbol.shndx == 0 or symbol.name not in hide:
            continue
        if symbol.binding == lief.ELF.Symbol.BINDING.GNU_UNIQUE:
            symbol.binding = lief.ELF.Symbol.BINDING.GLOBAL
        symbol.visibility = lief.ELF.Symbol.VISIBILITY.HIDDEN
        changed += 1
    return changed


def localize_cxx_runtime(binary) -> tuple[str, ...]:
    """Plans and applies the localize step on a LIEF ELF binary; returns the names hidden."""
    plan = plan_localize(exported_symbols(binary))
    apply_localize(binary, plan)
    return plan.hide


def verify_localized(binary, where: str) -> None:
    """Raises InputError when a rewritten binary (read back from disk) still exports C++ runtime or
    STB_GNU_UNIQUE symbols."""
    from shimgen.errors import InputError

    left = plan_localize(exported_symbols(binary)).hide
    if left:
        raise InputError(f"{where}: still exports {len(left)} C++ runtime symbol(s) after localizing "
                         f"({', '.join(left[:4])})")
