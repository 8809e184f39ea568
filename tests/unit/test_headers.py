"""The header scanner on every tricky form, and on PyTorch's real shim headers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shimgen.project.headers import scan_header, scan_text

DATA = Path(__file__).parent / "data"


def names(text: str, macro: str = "AOTI_SHIM_EXPORT") -> list[str]:
    return [d.name for d in scan_text(text, macro)]


def test_tricky_header_yields_exactly_the_marked_declarations():
    found = {d.name: d.line for d in scan_header(DATA / "tricky.h", "AOTI_SHIM_EXPORT")}
    assert found == {
        "aoti_torch_device_type_cpu": 18,
        "aoti_torch_empty_strided": 21,  # multi-line, comments between parameters
        "aoti_torch_macro_return": 30,  # macro in the return type
        "aoti_torch_with_callback": 32,  # function-pointer parameter
        "aoti_torch_returns_fnptr": 35,  # returns a function pointer
        "aoti_torch_create_cuda_guard": 38,  # every branch of #if/#elif/#else
        "aoti_torch_create_rocm_guard": 40,
        "aoti_torch_cpu_only": 42,
        "aoti_torch_deprecated": 49,  # trailing attribute with its own parentheses
        "aoti_torch_global_flag": 51,  # a variable
        "aoti_torch_in_namespace": 61,  # inside a C++ namespace after extern "C" closed
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/* AOTI_SHIM_EXPORT int a(void); */", []),
        ("// AOTI_SHIM_EXPORT int a(void);\n", []),
        ('const char* s = "AOTI_SHIM_EXPORT int a(void);";', []),
        ("#define X AOTI_SHIM_EXPORT int a(void);\n", []),
        ("#if 0\nAOTI_SHIM_EXPORT int a(void);\n#else\nAOTI_SHIM_EXPORT int b(void);\n#endif\n", ["b"]),
        ("#if 0\n#ifdef X\n#endif\nAOTI_SHIM_EXPORT int a(void);\n#endif\nAOTI_SHIM_EXPORT int c(void);", ["c"]),
        ('extern "C" {\nAOTI_SHIM_EXPORT int a(int (*f)(int));\n}\n', ["a"]),
        ("AOTI_SHIM_EXPORT int a(void) { return 1; }\nAOTI_SHIM_EXPORT int b(void);", ["a", "b"]),
        ("AOTI_SHIM_EXPORT int a(int x) noexcept;", ["a"]),
        ("AOTI_SHIM_EXPORT\nint\n  a\n  (\n int x\n )\n ;", ["a"]),
        ("int unmarked(void);\nAOTI_SHIM_EXPORT_OTHER int b(void);", []),
        ("typedef AOTI_SHIM_EXPORT int (*fp)(void);", []),
        ("#define LONG \\\n  AOTI_SHIM_EXPORT int a(void);\nAOTI_SHIM_EXPORT int b(void);", ["b"]),
        ("MY_EXPORT int a(void);\nAOTI_SHIM_EXPORT int b(void);", ["b"]),
    ],
)
def test_forms(text, expected):
    assert names(text) == expected


def test_custom_export_macro():
    assert names("MY_EXPORT int a(void);\nAOTI_SHIM_EXPORT int b(void);", "MY_EXPORT") == ["a"]


identifiers = st.from_regex(r"aoti_[a-z][a-z0-9_]{0,20}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(identifiers, min_size=1, max_size=8, unique=True), st.data())
def test_property_every_marked_declaration_is_found(decl_names, data):
    """Generated headers mixing the forms above: the scanner finds exactly the marked names."""
    lines, marked = [], []
    for name in decl_names:
        form = data.draw(st.sampled_from(["plain", "multiline", "fnptr", "comment", "unmarked", "ifdef"]))
        if form == "plain":
            lines.append(f"AOTI_SHIM_EXPORT int32_t {name}(int64_t x);")
        elif form == "multiline":
            lines.append(f"AOTI_SHIM_EXPORT\nAOTITorchError\n{name}(\n  int64_t a, /* c */\n  void* b);")
        elif form == "fnptr":
            lines.append(f"AOTI_SHIM_EXPORT int {name}(void (*cb)(int), int (*g)(void*, long));")
        elif form == "ifdef":
            lines.append(f"#ifdef USE_X\nAOTI_SHIM_EXPORT int {name}(void);\n#endif")
        elif form == "comment":
            lines.append(f"/* AOTI_SHIM_EXPORT int {name}(void); */")
            continue
        else:
            lines.append(f"int {name}(void);")
            continue
        marked.append(name)
    assert names("\n".join(lines)) == marked


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_property_arbitrary_text_never_crashes(text):
    for declaration in scan_text(text, "AOTI_SHIM_EXPORT"):
        assert declaration.name.isidentifier()


def test_pytorch_shim_headers_declare_every_shim_libtorch_exports():
    """Real third-party headers: every aoti_torch_* that libtorch_cpu.so exports is found."""
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    library = root / "lib" / "libtorch_cpu.so"
    c_dir = root / "include" / "torch" / "csrc" / "inductor" / "aoti_torch"
    headers = sorted((c_dir / "c").glob("*.h")) + [c_dir / "generated" / n for n in ("c_shim_cpu.h", "c_shim_aten.h")]
    declared = {d.name for h in headers for d in scan_header(h, "AOTI_TORCH_EXPORT")}
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    exported = {line.split()[-1] for line in nm.stdout.splitlines() if line.split()[-1].startswith("aoti_torch_")}
    assert len(exported) > 300
    assert exported <= declared, sorted(exported - declared)
    # The CUDA guards sit in '#ifdef USE_CUDA' branches a CPU build never compiles: still found.
    assert "aoti_torch_create_cuda_guard" in declared
