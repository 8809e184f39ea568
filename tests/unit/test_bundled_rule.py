"""SG010 over plain Binary values: the family data's invariants, the anchor threshold, and the
"is the library" judgement by SONAME and by file name (auditwheel's grafted, hashed copies)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shimgen.binary.symbols import Binary
from shimgen.check import Policy
from shimgen.check.libraries import DATA, SCHEMA, families, parse_libraries
from shimgen.check.rules import run_rules
from shimgen.errors import InputError

POLICY = Policy.from_options("p_")
ZLIB = {"deflateInit2_", "inflateInit2_", "deflateEnd", "inflateEnd", "crc32", "adler32", "gzopen"}


def lib(name: str, exports, *, soname: str | None = None, member: str | None = None, kind: str = "shared") -> Binary:
    return Binary(name, member, "ELF", kind, frozenset(exports), frozenset(), soname=soname)


def sg010(binary: Binary) -> list[tuple[str, str]]:
    return [(f.symbol, f.message) for f in run_rules(POLICY, [binary]) if f.code == "SG010"]


def test_the_data_file_holds_every_family_the_issue_names():
    names = " ".join(f.name for f in families())
    for wanted in ("zlib", "libxml2", "libxslt", "OpenSSL", "BoringSSL", "libpng", "libjpeg", "libtiff", "zstd",
                   "lz4", "brotli", "snappy", "SQLite", "curl", "protobuf", "abseil", "re2", "pthreadpool",
                   "cpuinfo", "BLAS", "LAPACK", "LLVM"):
        assert wanted in names, wanted


def test_a_binary_exporting_zlib_is_reported_once_with_its_count():
    found = sg010(lib("ext.so", ZLIB | {"PyInit_ext"}))
    assert len(found) == 1
    symbol, message = found[0]
    assert symbol == "deflateInit2_" and "7 symbols of zlib" in message


@pytest.mark.parametrize(("soname", "path"), [
    ("libz.so.1", "libz.so.1"),
    (None, "site-packages/pillow.libs/libz-4a5b6c7d.so.1.3"),  # no SONAME: judged by file name
    ("libz-4a5b6c7d.so.1.3", "whatever.so"),
])
def test_the_library_itself_is_quiet(soname, path):
    assert sg010(lib(path, ZLIB, soname=soname)) == []


def test_a_grafted_member_of_a_wheel_is_judged_by_its_own_file_name():
    grafted = lib("pillow.whl", {"png_create_read_struct", "png_read_info", "png_sig_cmp"},
                  member="pillow.libs/libpng16-a2b3c4d5.so.16.50.0")
    assert sg010(grafted) == []
    other = lib("pillow.whl", {"png_create_read_struct", "png_read_info"}, member="PIL/_imaging.so")
    assert [s for s, _ in sg010(other)] == ["png_create_read_struct"]


def test_one_anchor_is_not_enough_and_objects_are_never_reported():
    assert sg010(lib("mine.so", {"crc32", "PyInit_mine"})) == []  # many projects define their own crc32
    assert sg010(lib("mine.o", ZLIB, kind="object")) == []
    assert sg010(lib("only_entry.so", {"PyInit_only_entry"})) == []


def test_two_families_in_one_binary_are_two_findings():
    xml = {"xmlReadMemory", "xmlFreeDoc", "xmlNewDoc"}
    found = sg010(lib("etree.so", ZLIB | xml))
    assert sorted(s for s, _ in found) == ["deflateInit2_", "xmlReadMemory"]


def _data():
    return json.loads(Path(DATA).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("mutate", "says"), [
    (lambda d: d.update(schema="shimgen-runtimes/1"), SCHEMA),
    (lambda d: d.update(min_anchors=0), "min_anchors"),
    (lambda d: d.update(min_anchors=True), "min_anchors"),
    (lambda d: d.update(min_anchors=99), "fewer anchors"),
    (lambda d: d["families"][0]["anchors"].append("notAZlibName"), "matches none of the member prefixes"),
    (lambda d: d["families"].append(dict(d["families"][0])), "named twice"),
    (lambda d: d["families"][1].pop("hint"), "needs exactly"),
])
def test_the_loader_refuses_broken_data(mutate, says):
    data = _data()
    mutate(data)
    with pytest.raises(InputError, match=says):
        parse_libraries(data, "libraries.json")
    assert parse_libraries(_data(), "libraries.json")[1] >= 1  # the shipped file passes
