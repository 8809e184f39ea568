"""repair's plan and verification as pure functions over Binary values (no compiler, no files)."""

from __future__ import annotations

from shimgen.binary.symbols import Binary
from shimgen.record import replace
from shimgen.repair.plan import plan_hide, plan_prefix
from shimgen.repair.verify import verify

ZLIB = {"deflateInit2_", "inflateInit2_", "deflateEnd", "inflateEnd"}


def so(path: str, exports=(), imports=(), *, kind: str = "shared", fmt: str = "ELF", needed=()) -> Binary:
    return Binary(path, None, fmt, kind, frozenset(exports), frozenset(imports), needed=tuple(needed))


def test_hide_keeps_what_the_set_imports_and_entry_points():
    ext = so("ext.so", {"PyInit_ext", "helper", "shared_fn", "_init", *ZLIB})
    user = so("user.so", {"PyInit_user"}, {"shared_fn", "malloc"})
    plan = plan_hide([ext, user])
    by = {p.key: p for p in plan.binaries}
    assert by["ext.so"].hide == tuple(sorted({"helper", *ZLIB}))
    assert by["ext.so"].kept_for == (("shared_fn", ("user.so",)),)
    assert by["ext.so"].families == ("zlib",)
    assert by["user.so"].hide == () and by["user.so"].changes == 0


def test_keep_globs_and_names_and_what_is_left_alone():
    ext = so("ext.so", {"PyInit_ext", "api_open", "api_close", "private", "listed"})
    plan = plan_hide([ext, so("prog", {"main"}, {"x"}, kind="executable"), so("a.dylib", {"f"}, fmt="Mach-O")],
                     keep=("api_*",), keep_names=("listed",))
    assert plan.binaries[0].hide == ("private",)
    assert [why for _, why in plan.skipped] == ["an ELF executable, not a shared library",
                                                 "Mach-O is out of scope (ELF only)"]


def test_prefix_renames_providers_and_only_the_imports_the_set_provides():
    libjpeg = so("libjpeg-1a2b.so.62", {"jpeg_read_header", "jpeg_std_error", "other"})
    imaging = so("_imaging.so", {"PyInit__imaging"}, {"jpeg_read_header", "jpeg_from_elsewhere", "malloc"})
    tiff = so("libtiff-3c4d.so.6", {"TIFFOpen"}, {"jpeg_std_error"})
    plan = plan_prefix([libjpeg, imaging, tiff], "pil_", ["jpeg_*"])
    by = {p.key: dict(p.rename) for p in plan.binaries}
    assert by["libjpeg-1a2b.so.62"] == {"jpeg_read_header": "pil_jpeg_read_header",
                                        "jpeg_std_error": "pil_jpeg_std_error"}
    assert by["_imaging.so"] == {"jpeg_read_header": "pil_jpeg_read_header"}  # jpeg_from_elsewhere binds outside
    assert by["libtiff-3c4d.so.6"] == {"jpeg_std_error": "pil_jpeg_std_error"}
    again = plan_prefix([so("l.so", {"pil_jpeg_x"}), so("c.so", (), {"pil_jpeg_x"})], "pil_", ["jpeg_*", "pil_*"])
    assert all(p.rename == () for p in again.binaries)  # already prefixed: nothing to do


def test_a_family_renames_the_whole_api_of_its_own_library_not_only_its_member_prefixes():
    """psycopg-binary's grafted libcrypto exports OCSP_*, OSSL_*, MD5_*, UINT32_it ... beside the
    family's member prefixes (EVP_, SSL_, ...): renaming only those left libssl binding 114 calls
    into a preloaded system libcrypto. A binary that *is* the library has its every export renamed;
    a binary that only bundles it keeps the member-prefix rule."""
    openssl = "OpenSSL/BoringSSL (libcrypto, libssl)"
    crypto = so("libcrypto-3a06.so.3", {"EVP_DigestInit_ex", "OCSP_RESPID_free", "UINT32_it", "_init"})
    ssl = so("libssl-6a9b.so.3", {"SSL_new", "OPENSSL_init_ssl"}, {"EVP_DigestInit_ex", "OCSP_RESPID_free", "malloc"})
    other = so("libpq-e9b5.so.5", {"PQconnectdb", "EVP_own_helper", "OCSP_own"}, {"SSL_new", "UINT32_it"})
    globs = ["EVP_*", "SSL_*", "OPENSSL_*"]
    by = {p.key: dict(p.rename) for p in plan_prefix([crypto, ssl, other], "q_", globs, (openssl,)).binaries}
    assert by["libcrypto-3a06.so.3"] == {n: "q_" + n for n in ("EVP_DigestInit_ex", "OCSP_RESPID_free", "UINT32_it")}
    assert set(by["libssl-6a9b.so.3"]) == {"SSL_new", "OPENSSL_init_ssl", "EVP_DigestInit_ex", "OCSP_RESPID_free"}
    assert set(by["libpq-e9b5.so.5"]) == {"SSL_new", "UINT32_it", "EVP_own_helper"}  # not the library: globs only
    before = {p.key: dict(p.rename) for p in plan_prefix([crypto, ssl, other], "q_", globs).binaries}
    assert "OCSP_RESPID_free" not in before["libssl-6a9b.so.3"]  # patterns alone: the old, partial plan


def test_plan_json_names_every_change():
    data = plan_hide([so("ext.so", {"PyInit_ext", "h", *ZLIB}), so("u.so", (), {"h"})]).to_json()
    assert data["schema"] == "shimgen-repair-plan/1" and data["mode"] == "hide"
    ext = data["binaries"][0]
    assert ext["hide"] == sorted(ZLIB) and ext["kept_for_set"] == [{"symbol": "h", "imported_by": ["u.so"]}]
    assert ext["bundled_families"] == ["zlib"]


def _after(binary: Binary, exports, imports=None, **changes) -> Binary:
    return replace(binary, exports=frozenset(exports),
                   imports=frozenset(binary.imports if imports is None else imports), **changes)


def test_verify_accepts_exactly_the_plan_and_names_each_deviation():
    ext = so("ext.so", {"PyInit_ext", "h", *ZLIB}, {"malloc"}, needed=["libc.so.6"])
    user = so("u.so", {"PyInit_u"}, {"h"})
    plan = plan_hide([ext, user])
    good = [_after(ext, {"PyInit_ext", "h"}), user]
    assert verify(plan, [ext, user], good) == []
    cases = {
        "exports differ": [_after(ext, {"PyInit_ext", "h", "deflateEnd"}), user],  # one hide did not happen
        "missing: PyInit_ext": [_after(ext, {"h"}), user],  # an entry point lost
        "imports differ": [_after(ext, {"PyInit_ext", "h"}, {"malloc", "free"}), user],
        "dynamic section changed": [_after(ext, {"PyInit_ext", "h"}, needed=("libz.so.1",)), user],
        "which no binary of the set exports any more": [_after(ext, {"PyInit_ext"}), user],
        "other binaries than the input": [_after(ext, {"PyInit_ext", "h"})],
        "still exports the bundled zlib": [_after(ext, {"PyInit_ext", "h", "deflateInit2_", "inflateInit2_"}), user],
    }
    for says, after in cases.items():
        problems = verify(plan, [ext, user], after)
        assert problems and any(says in p for p in problems), (says, problems)


def test_verify_of_a_prefix_plan_follows_the_renames():
    lib = so("libjpeg.so", {"jpeg_std_error", "jpeg_read_header", "x"})
    use = so("use.so", {"PyInit_use"}, {"jpeg_std_error"})
    plan = plan_prefix([lib, use], "p_", ["jpeg_*"])
    after = [_after(lib, {"p_jpeg_std_error", "p_jpeg_read_header", "x"}), _after(use, {"PyInit_use"},
                                                                                  {"p_jpeg_std_error"})]
    assert verify(plan, [lib, use], after) == []
    half = [after[0], use]  # the consumer not renamed: it would bind the system's copy
    assert any("imports differ" in p for p in verify(plan, [lib, use], half))


def test_a_library_loaded_by_name_is_left_alone_unless_keep_names_its_api():
    ctypes_lib = so("libxgboost.so", {"XGBoosterCreate", "XGBoosterFree", *ZLIB})
    needed = so("libdep.so", {"dep_fn", "dep_private"})
    ext = Binary("ext.so", None, "ELF", "shared", frozenset({"PyInit_ext"}), frozenset({"dep_fn"}),
                 needed=("libdep.so",))
    by = {p.key: p for p in plan_hide([ctypes_lib, needed, ext]).binaries}
    assert by["libxgboost.so"].hide == () and "loaded by name" in by["libxgboost.so"].left
    assert by["libdep.so"].hide == ("dep_private",) and by["libdep.so"].left == ""  # needed: no entry point needed
    kept = plan_hide([ctypes_lib], keep=("XGBooster*",)).binaries[0]
    assert kept.hide == tuple(sorted(ZLIB)) and kept.left == ""
