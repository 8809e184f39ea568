"""The rules: pure functions from (Policy, [Binary]) to [Finding].

Rule metadata (code, severity, title, hint) is data (``RULES``): the README table, the SARIF rule
descriptors and the text output all come from it. Per-binary rules look at one Binary; set rules
(SG002, SG007, SG008) look at every binary given together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from shimgen.binary.symbols import OBJECT, SHARED, Binary
from shimgen.check.policy import Policy
from shimgen.record import record

ERROR, WARNING, NOTE = "error", "warning", "note"


@record
class Rule:
    code: str
    severity: str
    title: str
    hint: str
    explanation: str
    strict_only: bool = False


RULES: dict[str, Rule] = {r.code: r for r in (
    Rule("SG001", ERROR, "unprefixed shim exported",
         "compile this library with the prefix definition (shimgen::prefix / -D<macro>=<prefix>) and "
         "include the generated export.h in every shim source",
         "A name matching a shim pattern is exported without the prefix: it collides with libtorch's."),
    Rule("SG002", ERROR, "required shim missing",
         "link the shim objects whole (shimgen_apply_prefix / --whole-archive / alwayslink) so the "
         "linker keeps every shim",
         "A required prefixed shim is exported by none of the binaries checked."),
    Rule("SG003", ERROR, "required shim hidden",
         "mark the declaration with the export macro (default visibility), or add it to the version "
         "script / export list",
         "The static symbol table shows the required shim was linked in, but hidden or local."),
    Rule("SG004", ERROR, "unprefixed shim imported",
         "compile the consumer with the prefix definition so it calls the prefixed name",
         "A consumer compiled without the define would bind to whichever library exports the plain name first."),
    Rule("SG005", ERROR, "double prefix",
         "define the prefix macro once (the export.h guard handles double inclusion); do not also "
         "rename with -D or objcopy",
         "A name carries the prefix twice."),
    Rule("SG006", ERROR, "foreign export",
         "hide it (-fvisibility=hidden, a version script) or list it under 'allow' in shimgen.toml",
         "Under --strict, an export that is neither a prefixed shim nor allowed (libstdc++ internals "
         "exported from a shim library have crashed other libraries in the same process).",
         strict_only=True),
    Rule("SG007", ERROR, "duplicate provider",
         "a shim or the shim runtime's state: link the shim archive PRIVATE, not PUBLIC, so it is not copied "
         "into every dependent; a third-party library's state: link that library once, or keep each copy wholly "
         "private (no name of its namespace imported from or exported to the other library)",
         "Errors: a prefixed shim defined by more than one linked binary; the shim runtime's own thread-local "
         "(it carries the prefix) defined by more than one shared library while a copy binds locally (hidden or "
         "local in .symtab, protected, or a -Bsymbolic library); a third-party thread-local that one library "
         "binds locally while it imports a name of the same namespace (re2::, absl::, riegeli::) from, or "
         "exports one to, a library holding another copy: that one component then sees two copies "
         "(tensorflow's libtensorflow_cc.so.2 imports riegeli from libtensorflow_framework.so.2 yet keeps a "
         "LOCAL copy of riegeli's thread counter). Notes (shown with --verbose; not findings): copies the "
         "dynamic linker unifies (GNU_UNIQUE, interposable default visibility) and self-contained private copies "
         "no name of the namespace crosses to (a DT_NEEDED alone is not a crossing). Only shared libraries count "
         "as copies of a thread-local (executables never share a process; objects and archives given with their "
         "library define everything again on purpose)."),
    Rule("SG008", ERROR, "unresolved import",
         "add the shim to the provider's shim set, or check the provider is among the PATHs",
         "A prefixed shim imported by one binary is provided by none of the binaries checked."),
    Rule("SG009", ERROR, "private runtime copy exported",
         "hide the static copy: -Wl,--exclude-libs,ALL, a version script exporting only your API, or "
         "-static-libstdc++ with -fvisibility=hidden",
         "A linked binary defines and exports a runtime's own symbols (the C++ runtime, the unwinder, OpenMP, "
         "the CUDA runtime; families in shimgen/check/runtimes.json): other libraries in the process bind "
         "into this private copy and mix it with the shared runtime (a CUDA AOTInductor model .so with a "
         "static libstdc++ crashed in std::regex this way). Only the runtime's own functions count (__cxa_throw, "
         "std::terminate, ...): weak template instantiations such as std::vector of your types are not a copy."),
    Rule("SG010", ERROR, "bundled library exported",
         "hide the bundled copy: link it with -Wl,--exclude-libs,ALL or a version script exporting only your "
         "API; for a built wheel or library, run: shimgen repair PATH -o DIR",
         "A linked binary exports the API of a well-known library it is not (zlib, libxml2, OpenSSL, libpng, "
         "zstd, protobuf, LLVM, ...; families in shimgen/check/libraries.json, judged by SONAME and file name): "
         "with the system's copy loaded first, the binary's own calls bind into that other version (lxml's "
         "etree with Debian's libxml2 preloaded: 826 calls). A grafted libpng16-<hash>.so.16 is libpng and is "
         "quiet."),
    Rule("SG011", ERROR, "import hidden by its provider",
         "export it from the provider: list it in `exports` in shimgen.toml (globs and C++ patterns such as "
         "`ns::Class::*` work), or stop calling it from outside the library",
         "A binary checked imports a name that another binary checked defines but hides (local or hidden in "
         "its static symbol table, typically by the export list): the dependent fails to link with "
         "--no-undefined, or to load. Shims are left to SG002/SG008; this rule covers the library's other API "
         "(a C++ allocator or helper its backend and tests call)."),
)}


PLAIN_NAME_ADVICE = (
    "the rename did not reach the definition: a library header that defines the name as itself "
    "(`#define X X`) replaces a #define rename, and #pragma redefine_extname misses C++-linkage "
    "globals; run `shimgen lint` on the library's headers, use rename = \"auto\"")


@record
class Finding:
    code: str
    symbol: str
    path: str
    member: str | None
    message: str
    """One line saying what is wrong with this symbol here (the rule's title plus detail)."""
    level: str | None = None
    """A severity other than the rule's: NOTE for what a rule saw and judged harmless."""
    fix: str | None = None
    """A hint for this case, where the rule's own hint has several (SG007: shim archive or
    third-party library), or where this finding's cause is known to be another."""

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def severity(self) -> str:
        return self.level or RULES[self.code].severity

    @property
    def hint(self) -> str:
        return self.fix or RULES[self.code].hint


def _finding(code: str, symbol: str, binary: Binary, detail: str = "", severity: str | None = None,
             fix: str | None = None) -> Finding:
    title = RULES[code].title
    return Finding(code, symbol, binary.path, binary.member, f"{title}: {detail}" if detail else title, severity, fix)


# Per-binary rules ----------------------------------------------------------------------------------------


def unprefixed_exports(policy: Policy, binary: Binary) -> list[Finding]:
    """SG001."""
    prefix = policy.prefix
    return [_finding("SG001", name, binary, f"export it as {prefix}{name}")
            for name in sorted(policy.shims_among(binary.exports)) if not name.startswith(prefix)]


def unprefixed_imports(policy: Policy, binary: Binary) -> list[Finding]:
    """SG004."""
    prefix = policy.prefix
    return [_finding("SG004", name, binary, f"expected {prefix}{name}")
            for name in sorted(policy.shims_among(binary.imports)) if not name.startswith(prefix)]


def double_prefixed(policy: Policy, binary: Binary) -> list[Finding]:
    """SG005, on exports and imports alike."""
    doubled = policy.prefix + policy.prefix
    names = sorted({*policy.prefixed_among(binary.exports, doubled), *policy.prefixed_among(binary.imports, doubled)})
    return [_finding("SG005", name, binary, f"expected {name[len(policy.prefix):]}") for name in names]


def foreign_exports(policy: Policy, binary: Binary) -> list[Finding]:
    """SG006 (--strict): exports of a linked binary that are neither prefixed shims nor allowed.
    Names another rule already reports (SG001, SG005) are left to that rule."""
    if not binary.linked:
        return []  # an object's globals are not exports until a linker says so
    prefix = policy.prefix
    doubled = prefix + prefix
    found = []
    for name in sorted(binary.exports):
        if name.startswith(doubled) or policy.is_prefixed_shim(name) or policy.is_allowed(name):
            continue
        if not name.startswith(prefix) and policy.is_shim(name):
            continue
        found.append(_finding("SG006", name, binary))
    return found


def private_runtimes(policy: Policy, binary: Binary) -> list[Finding]:
    """SG009: one finding per runtime family whose anchors a linked binary exports, unless its
    SONAME says it is that runtime."""
    from shimgen.check.policy import names_starting_any
    from shimgen.check.runtimes import anchors as all_anchors
    from shimgen.check.runtimes import families

    if not binary.linked or not binary.exports:
        return []
    # One pass over the string table for every family's anchors at once (a precompiled pattern):
    # `in` would build all 74k names of libtorch_cpu.so, and a search per anchor costs 2 ms there.
    present = binary.exports.having(all_anchors())
    if not present:
        return []
    findings = []
    for family in families():
        if family.is_the_runtime(binary.soname):
            continue
        anchors = [a for a in family.anchors if a in present]
        if not anchors:
            continue
        count = len({n for found in names_starting_any(binary.exports, family.members).values() for n in found})
        needs = [n for n in binary.needed if family.is_the_runtime(n)]
        also = (f"; it also needs {needs[0]}, so two copies meet in one process" if needs else
                "; any other library that loads the shared runtime mixes the two")
        findings.append(_finding("SG009", anchors[0], binary,
                                 f"exports {count} symbols of the {family.name} ({', '.join(anchors[:3])}){also}"))
    return findings


def bundled_libraries(policy: Policy, binary: Binary) -> list[Finding]:
    """SG010: one finding per bundled-library family a linked binary exports (see check.libraries)."""
    from shimgen.check.libraries import bundled_in

    # -Bsymbolic binds the binary's own calls to its own copy at link time (libmupdf in pymupdf:
    # with the system's libz preloaded, none of its zlib calls bind there); what is left is the
    # other direction, a library resolving these names in its scope binding into this copy.
    also = ("; linked -Bsymbolic, so its own calls stay in its copy, but other libraries resolving these names "
            "can bind into it") if binary.symbolic else ""
    return [_finding("SG010", found.anchors[0], binary,
                     f"exports {found.count} symbols of {found.family.name} ({', '.join(found.anchors[:3])}){also}")
            for found in bundled_in(binary)]


PER_BINARY: tuple[Callable[[Policy, Binary], list[Finding]], ...] = (
    unprefixed_exports, unprefixed_imports, double_prefixed, private_runtimes, bundled_libraries,
)


# Set rules ---------------------------------------------------------------------------------------------


def _providers(policy: Policy, binaries: Sequence[Binary]) -> list[Binary]:
    """Linked binaries that export at least one prefixed shim."""
    return [b for b in binaries if b.linked and policy.prefixed_shims_among(b.exports)]


def _exported_prefixed(policy: Policy, linked: Sequence[Binary]) -> set[str]:
    """Every export carrying the prefix, across ``linked`` (what SG002 and SG008 look names up in)."""
    return {n for b in linked for n in policy.prefixed_among(b.exports)}


def missing_required(policy: Policy, binaries: Sequence[Binary]) -> list[Finding]:
    """SG002 / SG003: each required shim must be exported, prefixed, by some linked binary.

    Which binaries answer for a missing shim: the providers (linked binaries exporting a prefixed
    shim); when there is none, every linked binary that imports no shim (a shim library that lost
    all its shims still counts; a consumer does not). A missing shim that a static symbol table
    shows hidden is SG003; when an archive given alongside defines it, the finding names the member.
    """
    if not policy.required:
        return []
    linked = [b for b in binaries if b.linked]
    # Slices of a fat file are checked one by one (each architecture must hold every shim); the
    # other binaries together.
    together = [b for b in linked if b.slice_of is None]
    exported = _exported_prefixed(policy, together)
    own = {id(b): set(policy.prefixed_among(b.exports)) for b in linked if b.slice_of is not None}
    required = policy.required_prefixed
    if all(n in exported for n in required) and all(all(n in names for n in required) for names in own.values()):
        return []
    candidates = _providers(policy, linked) or [
        b for b in linked
        if not any(policy.is_shim(n) or policy.is_prefixed_shim(n) for n in b.imports)
    ]
    members: dict[str, list[Binary]] = {}
    for b in binaries:
        if b.kind == OBJECT:
            for name in b.exports:
                members.setdefault(name, []).append(b)
    findings = []
    for binary in candidates:
        have = own.get(id(binary), exported)
        for name in (n for n in required if n not in have):
            if name in binary.hidden:
                findings.append(_finding("SG003", name, binary, "present in the static symbol table, but hidden or local"))
                continue
            plain = name[len(policy.prefix):]
            if plain in binary.exports:  # SG001 reports it: the rename did not reach its source
                findings.append(_finding("SG002", name, binary, f"exported unprefixed as {plain} (SG001)",
                                         fix=UNPRENAMED_FIX))
                continue
            if plain in binary.hidden:
                # Compiled under its plain name, and hidden: the rename never reached the definition.
                findings.append(_finding("SG002", name, binary, f"its plain name {plain} is defined instead",
                                         fix=PLAIN_NAME_ADVICE))
                continue
            where = members.get(name)
            detail = (f"defined in {where[0].display}, which the linker dropped" if where
                      else "not exported")
            findings.append(_finding("SG002", name, binary, detail))
    return findings


UNPRENAMED_FIX = ("the shim was linked but not renamed: its source was compiled without the prefix definition "
                  "or without the generated header (force-include it: shimgen_apply_prefix(FORCE_INCLUDE), which "
                  "covers C, C++, CUDA and HIP sources; or a project `#define X X` undid the rename: shimgen lint)")


def _binds_locally(binary: Binary, name: str) -> str | None:
    """Why ``binary`` uses its own copy of the thread-local ``name`` whatever else the process
    holds, or None when the dynamic linker unifies it (GNU_UNIQUE, or an interposable
    default-visibility export: every reference binds to the first definition in load order)."""
    if name in binary.tls_hidden and name not in binary.tls:
        return "hidden (local in .symtab)"
    if name in binary.tls_unique:
        return None
    if name in binary.tls_protected:
        return "protected visibility"
    if binary.symbolic:
        return "linked -Bsymbolic (DF_SYMBOLIC)"
    return None


SHIM_COPY_FIX = "link the shim archive PRIVATE, not PUBLIC, so it is not copied into every dependent"


def _third_party_fix(binder: Binary, other: Binary, namespace: str) -> str:
    return (f"link {namespace} once: let {_short(binder)} use the copy in {_short(other)} (drop its own static "
            f"copy), or make its copy wholly private (no {namespace} name imported from or exported to "
            f"{_short(other)}; -Wl,--exclude-libs,ALL)")


def _short(binary: Binary) -> str:
    return (binary.member or binary.path).replace("\\", "/").rsplit("/", 1)[-1]


def duplicate_providers(policy: Policy, binaries: Sequence[Binary]) -> list[Finding]:
    """SG007: a prefixed shim defined by more than one linked binary; the shim runtime's own
    thread-local (it carries the prefix) defined by more than one shared library where a copy
    binds locally; or a third-party thread-local whose copy one library binds locally while that
    library exchanges names of the same namespace with a library holding another copy (see
    shimgen.check.reach): one component then observes two copies. Everything else is a note
    (the dynamic linker unified the copies, or each copy stays private to its library), which does
    not change the exit code."""
    if len({b.identity for b in binaries if b.linked}) < 2:
        return []
    from shimgen.check.reach import crossing, dependencies, internal_linkage, namespace_of

    owners: dict[str, list[Binary]] = {}
    shims: set[str] = set()
    for binary in binaries:
        if not binary.linked:
            continue  # an archive given alongside its library defines everything twice, on purpose
        prefixed = policy.prefixed_shims_among(binary.exports)
        shims.update(prefixed)
        # Thread-locals only of shared libraries: two executables never share a process, and an
        # executable's own copy is its business (torch's test binaries link c10 statically).
        tls = {*binary.tls, *binary.tls_hidden} if binary.kind == SHARED else set()
        for name in {*tls, *prefixed}:
            owners.setdefault(name, []).append(binary)
    findings = []
    depends: dict[str, frozenset[str]] | None = None
    for name, found in sorted(owners.items()):
        if len({b.identity for b in found}) < 2:  # the slices of one fat file are one provider
            continue
        reasons = {b.identity: _binds_locally(b, name) for b in found}
        if name in shims or name.startswith(policy.prefix):
            findings.extend(_shim_copies(name, found, reasons, is_shim=name in shims))
            continue
        namespace = namespace_of(name)
        if depends is None:
            depends = dependencies([b for b in binaries if b.linked])
        for binary in found:
            others = [o for o in found if o.identity != binary.identity]
            why = reasons[binary.identity]
            per_unit = internal_linkage(name)
            crossed = [(o, c) for o in others
                       if why and not per_unit and (c := crossing(binary, o, namespace, depends))]
            listed = ", ".join(sorted({o.identity for o in others}))
            if crossed:
                other, cross = crossed[0]
                via = "; ".join(part for part in (
                    f"depends on it and imports {cross.imported} {namespace} name(s) from it" if cross.imported else "",
                    f"it depends on this library and imports {cross.exported} {namespace} name(s) from here"
                    if cross.exported else "") if part)
                detail = (f"thread-local symbol binds to its own copy here ({why}) while this library uses "
                          f"{other.identity}, which holds another copy ({via}): one component sees two copies")
                findings.append(_finding("SG007", name, binary, detail, fix=_third_party_fix(binary, other, namespace)))
            elif per_unit:
                detail = (f"thread-local symbol of internal linkage (static, or in an anonymous namespace): one "
                          f"copy per translation unit by the language's rules; also defined by {listed}")
                findings.append(_finding("SG007", name, binary, detail, severity=NOTE))
            elif why:
                detail = (f"thread-local symbol binds to its own copy here ({why}); also defined by {listed}, "
                          f"but no {namespace} name passes between them: a private copy, each library sees one")
                findings.append(_finding("SG007", name, binary, detail, severity=NOTE))
            else:
                unique = name in binary.tls_unique
                detail = (f"thread-local symbol also defined by {listed}; "
                          + ("the dynamic linker keeps one copy (GNU_UNIQUE)" if unique else
                             "interposable here (default visibility): references bind to the first definition "
                             "in load order" if name in binary.tls else "kept private here"))
                findings.append(_finding("SG007", name, binary, detail, severity=NOTE))
    return findings


def _shim_copies(name: str, found: list[Binary], reasons: dict[str, str | None], *, is_shim: bool) -> list[Finding]:
    """SG007 for a prefixed shim (always an error) or the shim runtime's own thread-local (an
    error when a copy binds locally: the runtime's state must be one per process, whoever asks)."""
    hazard = is_shim or any(reasons.values())
    findings = []
    for binary in found:
        others = ", ".join(sorted({o.identity for o in found if o.identity != binary.identity}))
        if is_shim and name not in binary.tls:
            detail = f"shim also defined by {others}"
        elif hazard:
            why = reasons[binary.identity]
            detail = (f"thread-local symbol {'binds to its own copy here: ' + why if why else 'exported here'}"
                      f"; also defined by {others}, so the process holds more than one copy")
        else:
            detail = (f"thread-local symbol also defined by {others}; the dynamic linker keeps one copy "
                      f"({'GNU_UNIQUE' if name in binary.tls_unique else 'interposable default visibility'})")
        findings.append(_finding("SG007", name, binary, detail, severity=None if hazard else NOTE, fix=SHIM_COPY_FIX))
    return findings


def unresolved_imports(policy: Policy, binaries: Sequence[Binary]) -> list[Finding]:
    """SG008: a prefixed shim imported by a linked binary and exported by none.

    Only meaningful when a provider is among the binaries: checking a consumer alone says nothing
    about where its imports will come from.
    """
    linked = [b for b in binaries if b.linked]
    hooks = {policy.prefix + name for name in policy.hooks}  # weak: unresolved until an application hooks them
    wanted = [(binary, name) for binary in linked for name in policy.prefixed_shims_among(binary.imports)
              if not policy.is_double_prefixed(name) and name not in hooks]
    if not wanted or not _providers(policy, linked):
        return []
    exported = _exported_prefixed(policy, linked)
    return [_finding("SG008", name, binary, "no binary checked exports it")
            for binary, name in wanted if name not in exported]


def hidden_imports(policy: Policy, binaries: Sequence[Binary]) -> list[Finding]:
    """SG011: a name a linked binary imports, that no binary checked exports and that another
    linked binary's static symbol table shows defined but hidden (``Binary.hidden``, which the
    loader fills for the names asked about: see ``hidden_import_candidates``)."""
    linked = [b for b in binaries if b.linked]
    hiders: dict[str, list[Binary]] = {}
    for binary in linked:
        for name in binary.hidden:
            hiders.setdefault(name, []).append(binary)
    if not hiders:
        return []
    exported = {n for b in linked for n in b.exports if n in hiders}
    findings = []
    for binary in linked:
        for name in sorted(n for n in binary.imports if n in hiders and n not in exported):
            if policy.is_prefixed_shim(name) or policy.is_shim(name):
                continue  # SG002 / SG008 / SG004 speak for shims
            owners = ", ".join(sorted({b.identity for b in hiders[name] if b.identity != binary.identity}))
            if owners:
                findings.append(_finding("SG011", name, binary, f"defined but hidden in {owners}"))
    return findings


def hidden_import_candidates(binaries: Sequence[Binary]) -> set[str]:
    """The names SG011 asks the static symbol tables about: imports of a linked binary that no
    binary checked exports (only a set of two or more linked binaries can have any)."""
    linked = [b for b in binaries if b.linked]
    if len({b.identity for b in linked}) < 2:
        return set()
    imported = {n for b in linked for n in b.imports}
    return {n for n in imported if not any(n in b.exports for b in linked)}


SET_RULES: tuple[Callable[[Policy, Sequence[Binary]], list[Finding]], ...] = (
    missing_required, duplicate_providers, unresolved_imports, hidden_imports,
)


def dependents(policy: Policy, binaries: Sequence[Binary]) -> set[int]:
    """ids of the linked binaries that only use the shim library: they export no shim and import a
    shim or anything else a shim-exporting binary of the set exports (its C++ API: ExecuTorch's
    allocator test calls only that). --strict judges the shim library's export list, not the
    exports of every program or plugin checked beside it."""
    linked = [b for b in binaries if b.linked]

    def exports_shims(binary: Binary) -> bool:
        return bool(policy.prefixed_shims_among(binary.exports) or policy.shims_among(binary.exports))

    providers = [b for b in linked if exports_shims(b)]
    if not providers:
        return set()

    def uses_a_provider(binary: Binary) -> bool:
        if policy.prefixed_shims_among(binary.imports) or policy.shims_among(binary.imports):
            return True
        return any(name in provider.exports for provider in providers for name in binary.imports)

    return {id(b) for b in linked if not exports_shims(b) and uses_a_provider(b)}


def expect_searches(policy: Policy, binaries: Sequence[Binary]) -> None:
    """Announce to each linked binary's exports every prefix the rules will ask them about: the
    policy's prefix and shim literals, and the member prefixes of each runtime (SG009) and bundled
    library (SG010) family whose anchors it exports. The first search of a big string table then
    answers all of them in one pass (see ``Names.expect``); the answers do not change."""
    from shimgen.check import libraries, runtimes

    ours = (policy.prefix, *policy.matcher.literals)
    for binary in binaries:
        if not binary.linked or not binary.exports:
            continue
        literals = list(ours)
        for families, anchors in ((runtimes.families(), runtimes.anchors()),
                                  (libraries.families(), libraries.anchors())):
            present = binary.exports.having(anchors)
            if present:
                literals.extend(m for f in families if not present.isdisjoint(f.anchors) for m in f.members)
        binary.exports.expect(literals)


def run_rules(policy: Policy, binaries: Sequence[Binary], *, strict: bool = False) -> list[Finding]:
    """Every finding, per binary in input order, then the set rules; stable for identical input."""
    expect_searches(policy, binaries)
    findings: list[Finding] = []
    exempt = dependents(policy, binaries) if strict else set()
    for binary in binaries:
        for rule in PER_BINARY:
            findings.extend(rule(policy, binary))
        if strict and id(binary) not in exempt:
            findings.extend(foreign_exports(policy, binary))
    for set_rule in SET_RULES:
        findings.extend(set_rule(policy, binaries))
    return findings


def rules_markdown(rules: Iterable[Rule] = RULES.values()) -> str:
    """The rule table for the docs, generated from RULES (a test keeps the docs in step)."""
    lines = ["| code | severity | title | what it means | fix |", "| --- | --- | --- | --- | --- |"]
    for rule in rules:
        title = rule.title + (" (--strict only)" if rule.strict_only else "")
        lines.append(f"| {rule.code} | {rule.severity} | {title} | {rule.explanation} | {rule.hint} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m shimgen.check.rules  → the docs table
    print(rules_markdown(), end="")
