"""The one ctypes binding agrees with the C headers it binds, and with shimgen/runtime/shimgen.toml."""

from __future__ import annotations

import ctypes
import re
from ctypes import POINTER, c_bool, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_uint64
from pathlib import Path

import pytest

from shimgen.aoti import capi
from shimgen.project.config import load_config

ROOT = Path(__file__).resolve().parents[2]
HEADERS = sorted((ROOT / "shimgen/runtime/include/shimgen_runtime").glob("*.h"))
MARKERS = ("AOTI_SHIM_EXPORT", "SHIMGEN_RUNTIME_API")

# C type (const dropped, no spaces) -> ctypes type; opaque handle typedefs are pointers.
SCALARS = {
    "AOTITorchError": c_int32, "int32_t": c_int32, "int64_t": c_int64, "uint32_t": c_uint32,
    "uint64_t": c_uint64, "uint8_t": c_uint8, "size_t": c_size_t, "bool": c_bool, "double": c_double,
}
HANDLES = {"void*", "AtenTensorHandle", "CUDAGuardHandle", "CUDAStreamGuardHandle",
           "ShimgenCallerStreamGuardHandle", "shimgen_model*"}


def ctype(c: str):
    c = c.replace("const", "").replace(" ", "")
    if c == "void":
        return None
    if c == "char*":
        return c_char_p
    if c in HANDLES:
        return ctypes.c_void_p
    if c.endswith("*"):
        return POINTER(ctype(c[:-1]))
    return SCALARS[c]


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def declarations() -> dict[str, tuple[str, list[str], str]]:
    """name -> (C return type, C parameter types, marker) for every marked declaration."""
    found = {}
    for header in HEADERS:
        text = _strip_comments(header.read_text())
        for match in re.finditer(rf"\b({'|'.join(MARKERS)})\b([^;{{}}]*?)\b(\w+)\s*\(([^)]*)\)\s*;", text):
            marker, ret, name, params = match.groups()
            types = []
            for param in params.split(","):
                words = param.replace("*", " * ").split()
                if words in ([], ["void"]):
                    continue
                if len([w for w in words if w not in ("const", "*")]) > 1 and words[-1] != "*":
                    words = words[:-1]  # the parameter's name
                types.append(" ".join(words))
            found[name] = (ret.strip(), types, marker)
    return found


DECLARED = declarations()


def test_the_headers_parse_into_the_declarations_we_expect():
    # The parser itself can fail: known declarations come out with their C types.
    assert DECLARED["aoti_torch_get_sizes"] == ("AOTITorchError", ["AtenTensorHandle", "int64_t * *"], "AOTI_SHIM_EXPORT")
    assert DECLARED["shimgen_runtime_last_error"] == ("const char*", [], "SHIMGEN_RUNTIME_API")
    assert len([n for n in DECLARED if n.startswith("aoti_torch_")]) >= 40


BOUND = [(name, "AOTI_SHIM_EXPORT", sig) for name, sig in sorted(capi.SHIMS.items())] + [
    (name, "SHIMGEN_RUNTIME_API", sig) for name, sig in sorted(capi.API.items())
]


@pytest.mark.parametrize(("name", "marker", "signature"), BOUND, ids=[b[0] for b in BOUND])
def test_bound_signature_matches_its_header(name, marker, signature):
    assert name in DECLARED, f"{name} is bound in shimgen/aoti/capi.py but declared in no header"
    ret, params, declared_marker = DECLARED[name]
    assert declared_marker == marker
    assert signature == (ctype(ret), [ctype(p) for p in params]), DECLARED[name]


def test_code_shims_take_nothing_and_return_int32():
    codes = [n for n in DECLARED if n.startswith(capi.CODE_SHIM_PREFIXES) and n not in capi.SHIMS]
    assert "aoti_torch_dtype_float32" in codes and "aoti_torch_device_type_cuda" in codes
    for name in codes:
        assert DECLARED[name][:2] == ("int32_t", []), name


def test_c_api_names_agree_across_binding_headers_and_config():
    in_headers = {n for n, (_, _, marker) in DECLARED.items() if marker == "SHIMGEN_RUNTIME_API"}
    exported = set(load_config(ROOT / "shimgen/runtime/shimgen.toml").exports)
    assert set(capi.API) == in_headers == exported
