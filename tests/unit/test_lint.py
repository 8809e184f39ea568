"""The clobber lint: the libssh2 case (zlib-style prefix list with 'compress', a struct member of
that name) is found; true symbol uses are not flagged."""

from __future__ import annotations

import textwrap

from shimgen.project.lint import check_names, lint_text

ZLIB_NAMES = frozenset({"compress", "compress2", "deflate", "inflate", "crc32", "adler32", "uncompress"})

LIBSSH2_LIKE = textwrap.dedent(
    """\
    #include <zlib.h>
    #define CALL_ZLIB(compress, n) compress(n)
    struct session { struct { int compress; int other; } flags; };
    static int helper(int compress, char *deflate);
    int use(struct session *s, const unsigned char *buf, unsigned long n) {
        struct { int compress; } flags;
        unsigned long crc32 = 0;
        flags.compress = 1;
        s->flags.compress = 1;
        if (flags.compress)
            return compress((unsigned char *)0, &n, buf, n) + (int)adler32(0, buf, 4);
        return uncompress(0, 0, buf, n) + (int)crc32;
    }
    """
)


def test_libssh2_case_is_found_and_symbol_uses_are_not():
    found = lint_text(LIBSSH2_LIKE, ZLIB_NAMES, "session.c")
    got = {(c.line, c.name, c.kind) for c in found}
    assert got == {
        (2, "compress", "a macro parameter"),
        (3, "compress", "a struct/union member declaration"),
        (4, "compress", "a parameter name"),
        (4, "deflate", "a parameter name"),
        (6, "compress", "a struct/union member declaration"),
        (7, "crc32", "a local identifier"),
        (8, "compress", "a struct/union member access"),
        (9, "compress", "a struct/union member access"),
        (10, "compress", "a struct/union member access"),
    }
    line = str(next(c for c in found if c.line == 8))
    assert line.startswith("session.c:8: compress: used as a struct/union member access; ")
    # The calls on lines 11-12 (compress(...), adler32(...), uncompress(...)) are true uses.
    assert not any(c.line in (11, 12) and c.name in ("compress", "adler32", "uncompress") for c in found
                   if c.kind != "a local identifier")


def test_tags_and_enumerators_and_macro_names():
    text = "struct stat { int x; };\nenum { deflate = 1 };\n#define inflate my_inflate\n"
    kinds = {(c.name, c.kind) for c in lint_text(text, frozenset({"stat", "deflate", "inflate"}), "x.h")}
    assert kinds == {("stat", "a struct/union/enum tag"), ("deflate", "an enumerator"),
                     ("inflate", "a macro name")}


def test_keywords_and_standard_names_as_rename_targets():
    found = {(c.name, c.kind) for c in check_names(["decltype", "errno", "compress", "zz_ok"])}
    assert found == {("decltype", "a rename target that is a C/C++ keyword"),
                     ("errno", "a rename target that is a standard-library name")}


def test_pragma_mode_changes_the_hint_only():
    define = lint_text("struct s { int compress; };", frozenset({"compress"}), "a.c", "define")
    pragma = lint_text("struct s { int compress; };", frozenset({"compress"}), "a.c", "pragma")
    assert len(define) == len(pragma) == 1 and "pragma" in define[0].hint and "harmless" in pragma[0].hint


def test_cli_exit_codes(write_config, run_cli):
    config = write_config('prefix = "zz_"\nsymbols = ["compress", "uncompress"]\nlint_sources = ["src/*.c"]\n',
                          files={"src/session.c": LIBSSH2_LIKE, "src/clean.c": "int f(void){return compress(0);}\n"})
    result = run_cli("lint", "-c", config)
    assert result.code == 1
    assert "src/session.c:8: compress: used as a struct/union member access;" in result.out
    assert "clean.c" not in result.out.replace("in 2 files", "")
    clean = run_cli("lint", "-c", config, config.parent / "src" / "clean.c")
    assert clean.code == 0, clean.out
    missing = run_cli("lint", "-c", config, config.parent / "nope.c")
    assert missing.code == 2 and "no such file" in missing.err


def test_keyword_target_refused_before_lint(write_config, run_cli):
    # Explicit symbols that are C/C++ keywords or standard-library names are refused when the config
    # loads (issue 19, item 9): one line each, exit 2, before lint scans anything.
    config = write_config('prefix = "zz_"\nsymbols = ["decltype", "errno", "ok_name"]\n',
                          files={"a.c": "int ok_name(void) { return 0; }\n"})
    result = run_cli("lint", "-c", config, config.parent / "a.c")
    assert result.code == 2
    assert "'decltype'" in result.err and "'errno'" in result.err
    assert "ok_name" not in result.err


# BoringSSL's shapes (issue 23, item 3): evp.h's compatibility macros `#define X X`, and data
# declared extern const inside extern "C" { } and namespaces, which are no locals.
BORINGSSL_LIKE = textwrap.dedent(
    """\
    #if defined(__cplusplus)
    extern "C" {
    #endif
    extern const ASN1_ITEM ASN1_INTEGER_it;
    OPENSSL_EXPORT const ASN1_ITEM ASN1_OCTET_STRING_it;
    int EVP_PKEY_CTX_set_rsa_oaep_md(void *ctx, const void *md);
    #define EVP_PKEY_CTX_set_rsa_oaep_md EVP_PKEY_CTX_set_rsa_oaep_md
    #if defined(__cplusplus)
    }
    namespace bssl { extern const uint32_t kOpenSSLReasonValues[]; }
    #endif
    int f(void) { extern int ASN1_INTEGER_it; int kOpenSSLReasonValues = 1; return kOpenSSLReasonValues; }
    """
)
BORINGSSL_NAMES = frozenset({"ASN1_INTEGER_it", "ASN1_OCTET_STRING_it", "EVP_PKEY_CTX_set_rsa_oaep_md",
                             "kOpenSSLReasonValues"})


def test_self_defined_macro_is_found_and_extern_data_is_not_a_local():
    found = [(c.line, c.name, c.kind) for c in lint_text(BORINGSSL_LIKE, BORINGSSL_NAMES, "evp.h", "define")]
    assert found == [(7, "EVP_PKEY_CTX_set_rsa_oaep_md", "a macro defined as itself (#define X X)"),
                     (12, "kOpenSSLReasonValues", "a local identifier")]
    (self_define,) = [c for c in lint_text(BORINGSSL_LIKE, BORINGSSL_NAMES, "evp.h", "define") if c.line == 7]
    assert "SG002" in self_define.hint and "auto" in self_define.hint
    (pragma,) = [c for c in lint_text(BORINGSSL_LIKE, BORINGSSL_NAMES, "evp.h", "auto") if c.line == 7]
    assert "harmless" in pragma.hint


def test_cli_takes_the_names_of_a_symbols_from_targets_config_from_a_manifest(write_config, run_cli):
    import json

    config = write_config('prefix = "vnd_"\nsymbols_from_targets = ["crypto"]\n', files={"evp.h": BORINGSSL_LIKE})
    refused = run_cli("lint", "-c", config, config.parent / "evp.h")
    assert refused.code == 2 and "--manifest" in refused.err
    manifest = config.parent / "manifest.json"
    manifest.write_text(json.dumps({"schema": "shimgen-manifest/1", "prefix": "vnd_", "shims": [
        {"name": n, "required": True} for n in sorted(BORINGSSL_NAMES)]}))
    result = run_cli("lint", "-c", config, "--manifest", manifest, config.parent / "evp.h")
    assert result.code == 1, result.err
    assert "evp.h:7: EVP_PKEY_CTX_set_rsa_oaep_md: used as a macro defined as itself" in result.out


def test_lint_escapes_control_characters_in_file_names(tmp_path):
    """A finding names its source file; an ESC in that name is printed escaped (issue 19 item 12)."""
    import subprocess
    import sys

    from tests.support import REPO

    (tmp_path / "shimgen.toml").write_text('prefix = "p_"\nsymbols = ["aoti_torch_a"]\n')
    (tmp_path / "s\x1b[31m.c").write_text("#define aoti_torch_a x\n")
    done = subprocess.run([sys.executable, "-m", "shimgen", "lint", "."], cwd=tmp_path, capture_output=True,
                          text=True, env={**__import__("os").environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout and "s\\x1b[31m.c:1: aoti_torch_a" in done.stdout, done.stdout
