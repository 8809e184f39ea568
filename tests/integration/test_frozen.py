"""Models compiled with inductor's freezing=True on the runtime, CPU (docs/aoti.md, "Frozen CPU
models"). Two halves:

* The blob: torch (in a child process) packs weights in the formats oneDNN picks on this CPU
  (Linear and convolution weights, float32 / bfloat16 / float16, grouped, depthwise, 3-d and
  transposed, and the int8 ones of PT2E-quantized models), writes each packed tensor's bytes, the
  metadata inductor would embed (``torch.ops.mkldnn._get_mkldnn_serialized_md``) and torch's own
  ``to_dense()`` (int8: the weight torch packed); the runtime's
  ``create_tensor_from_blob_v2(layout=_mkldnn)`` must give back exactly those dense values.
  Controls: a metadata blob with two inner blocks swapped unpacks to other values (the comparison
  sees a wrong unpack order), and truncated or corrupted metadata is refused with one message.
* The models: tests/frozen_zoo.py's CI subset (a float CNN + MLP and a PT2E int8 MLP) compiled by
  stock torch with freezing=True, rewritten by ``shimgen prefix-imports``, run beside libtorch and
  compared with eager. The Llama (float32, bfloat16), BERT, ViT, ResNet, 16-bit post-op and other
  int8 entries: ``SHIMGEN_FROZEN_ALL=1`` runs them here
  too (minutes of compiling on two cores, once: the zoo cache keeps them), or
  ``python scripts/zoo_cpu.py --frozen``.

``SHIMGEN_TEST_RUNTIME=/path/libshimgen_runtime.so`` runs this file against an already built CPU
runtime instead of the session's build (a local shortcut; CI leaves it unset).
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from frozen_zoo import CI, FROZEN  # noqa: E402

from shimgen.aoti import coverage  # noqa: E402
from tests.aoti_helpers import (  # noqa: E402
    INVALID,
    PREFIX,
    UNSUPPORTED,
    assert_zoo_model_matches_eager,
    run_zoo_beside_libtorch,
    torch_lib_dir,
)

NAMES = list(FROZEN) if os.environ.get("SHIMGEN_FROZEN_ALL") else list(CI)
FUSED = frozenset({"aoti_torch_cpu__linear_pointwise", "aoti_torch_cpu__linear_pointwise_binary",
                   "aoti_torch_cpu_mkldnn__convolution_pointwise", "aoti_torch_cpu_mkldnn__convolution_pointwise_binary",
                   "aoti_torch_cpu_mkldnn__convolution_pointwise_binary_",
                   "aoti_torch_cpu_mkldnn__convolution_transpose_pointwise",
                   # the int8 ones of a PT2E-quantized model (tests/frozen_zoo.py frozen_q8_*)
                   "aoti_torch_cpu__qlinear_pointwise_tensor", "aoti_torch_cpu__qlinear_pointwise_binary_tensor",
                   "aoti_torch_cpu__qconv_pointwise_tensor", "aoti_torch_cpu__qconv2d_pointwise_binary_tensor"})
# The fused ops each CI model is here for (measured, torch 2.13 CPU, freezing=True).
EXPECTED_FALLBACKS = {
    "frozen_cnn": {"aoti_torch_cpu__linear_pointwise", "aoti_torch_cpu__linear_pointwise_binary",
                   "aoti_torch_cpu_mkldnn__convolution_pointwise",
                   "aoti_torch_cpu_mkldnn__convolution_pointwise_binary_",
                   "aoti_torch_cpu_mkldnn__convolution_transpose_pointwise"},
    "frozen_q8_mlp": {"aoti_torch_cpu__qlinear_pointwise_tensor", "aoti_torch_cpu__qlinear_pointwise_binary_tensor"},
}

# The child: packs weights with torch's own reorder ops, writes NAME.data (the packed bytes),
# NAME.md (the metadata), NAME.npy (to_dense(), bf16/f16 as their uint16 bits) and cases.json.
PACK = r"""
import ctypes, json, sys
from pathlib import Path
import numpy as np
import torch
out = Path(sys.argv[1])
torch.manual_seed(0)
mk = torch.ops.mkldnn
cases = {
    "linear_f32": lambda: mk._reorder_linear_weight(torch.randn(16, 7200), 2),
    "linear_odd": lambda: mk._reorder_linear_weight(torch.randn(20, 37), 3),
    "linear_sq": lambda: mk._reorder_linear_weight(torch.randn(64, 64), 24),
    "linear_bf16": lambda: mk._reorder_linear_weight(torch.randn(70, 30).bfloat16(), 24),
    "linear_bf16_sq": lambda: mk._reorder_linear_weight(torch.randn(128, 64).bfloat16(), 24),
    "linear_f16": lambda: mk._reorder_linear_weight(torch.randn(64, 48).half(), 24),
    "conv_rgb": lambda: mk._reorder_convolution_weight(torch.randn(8, 3, 3, 3), [0, 0], [1, 1], [1, 1], 1, [2, 3, 32, 32]),
    "conv_64": lambda: mk._reorder_convolution_weight(torch.randn(64, 32, 3, 3), [1, 1], [1, 1], [1, 1], 1, [2, 32, 16, 16]),
    "conv_grouped": lambda: mk._reorder_convolution_weight(torch.randn(16, 4, 3, 3), [1, 1], [1, 1], [1, 1], 4, [2, 16, 16, 16]),
    "conv_depthwise": lambda: mk._reorder_convolution_weight(torch.randn(16, 1, 3, 3), [1, 1], [1, 1], [1, 1], 16, [2, 16, 16, 16]),
    "conv_3d": lambda: mk._reorder_convolution_weight(torch.randn(8, 4, 3, 3, 3), [1, 1, 1], [1, 1, 1], [1, 1, 1], 1, [1, 4, 8, 8, 8]),
    "conv_bf16": lambda: mk._reorder_convolution_weight(torch.randn(12, 20, 3, 3).bfloat16(), [1, 1], [1, 1], [1, 1], 1, [2, 20, 16, 16]),
    "deconv": lambda: mk._reorder_convolution_transpose_weight(torch.randn(10, 6, 3, 3), [1, 1], [0, 0], [2, 2], [1, 1], 1, [2, 10, 8, 8]),
    "deconv_grouped": lambda: mk._reorder_convolution_transpose_weight(torch.randn(8, 3, 3, 3), [0, 0], [0, 0], [1, 1], [1, 1], 2, [2, 8, 8, 8]),
}
# int8 weights as a PT2E-quantized model's qlinear / qconv get them (the packed Linear is [K, N]);
# oneDNN appends its compensation past the blocked data. The reference is torch's own int8 weight.
q8 = {
    "qlinear": (lambda w: torch.ops.onednn.qlinear_prepack(w, [4, 37]), lambda: torch.randint(-128, 128, (20, 37), dtype=torch.int8), True),
    "qlinear_sq": (lambda w: torch.ops.onednn.qlinear_prepack(w, [8, 64]), lambda: torch.randint(-128, 128, (64, 64), dtype=torch.int8), True),
    "qconv": (lambda w: torch.ops.onednn.qconv_prepack(w, torch.ones(16), 0.1, 3, [1, 1], [1, 1], [1, 1], 1, [2, 8, 8, 8]),
              lambda: torch.randint(-128, 128, (16, 8, 3, 3), dtype=torch.int8), False),
    "qconv_grouped": (lambda w: torch.ops.onednn.qconv_prepack(w, torch.ones(16), 0.1, 3, [1, 1], [1, 1], [1, 1], 4, [2, 16, 8, 8]),
                      lambda: torch.randint(-128, 128, (16, 4, 3, 3), dtype=torch.int8), False),
}
for name, (pack, weight, transposed) in q8.items():
    w = weight()
    cases[name] = (lambda pack=pack, w=w: pack(w)), (w.t().contiguous() if transposed else w)
codes = {torch.float32: 6, torch.bfloat16: 15, torch.float16: 5, torch.int8: 1}
made = {}
for name, make in cases.items():
    make, reference = make if isinstance(make, tuple) else (make, None)
    try:
        t = make()
    except RuntimeError as e:  # a dtype this CPU's oneDNN cannot pack
        print(f"{name}: {e}", file=sys.stderr)
        continue
    n = torch.ops.mkldnn._nbytes(t)
    (out / f"{name}.data").write_bytes(ctypes.string_at(torch.ops.mkldnn.data_ptr(t), n))
    (out / f"{name}.md").write_bytes(bytes(torch.ops.mkldnn._get_mkldnn_serialized_md(t).tolist()))
    dense = t.to_dense() if reference is None else reference
    array = (dense.numpy() if dense.dtype in (torch.float32, torch.int8)
             else dense.view(torch.int16).numpy().view(np.uint16))
    np.save(out / f"{name}.npy", array)
    made[name] = {"sizes": list(t.shape), "dtype": codes[t.dtype]}
(out / "cases.json").write_text(json.dumps(made))
"""


def _torch_cases(tmp_path_factory, name: str, script: str) -> tuple[Path, dict]:
    """Runs ``script`` (torch, in a child process) into a fresh directory; its files and cases.json."""
    torch_lib_dir()  # skips without torch
    out = tmp_path_factory.mktemp(name)
    done = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads((out / "cases.json").read_text())


@pytest.fixture(scope="module")
def runtime_library(request) -> Path:
    explicit = os.environ.get("SHIMGEN_TEST_RUNTIME")
    return Path(explicit).resolve() if explicit else request.getfixturevalue("cpu_runtime").library


@pytest.fixture(scope="module")
def packed(tmp_path_factory) -> tuple[Path, dict]:
    return _torch_cases(tmp_path_factory, "packed", PACK)


class Unpacker:
    """The runtime's aoti_torch_create_tensor_from_blob_v2 with layout _mkldnn (3), through ctypes."""

    def __init__(self, library: Path) -> None:
        self.lib = ctypes.CDLL(str(library))
        self.create = getattr(self.lib, PREFIX + "aoti_torch_create_tensor_from_blob_v2")
        self.create.restype = ctypes.c_int32
        self.create.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                                ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                                ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32,
                                ctypes.c_char_p, ctypes.c_int64]
        self.lib.shimgen_runtime_last_error.restype = ctypes.c_char_p
        self.get_data_ptr = getattr(self.lib, PREFIX + "aoti_torch_get_data_ptr")
        self.get_numel = getattr(self.lib, PREFIX + "aoti_torch_get_numel")
        self.delete = getattr(self.lib, PREFIX + "aoti_torch_delete_tensor_object")

    def unpack(self, data: bytes, sizes: list[int], dtype: int, md: bytes) -> tuple[int, np.ndarray | str]:
        """(0, the dense values: float32, int8 or 16-bit floats as uint16 bits) or (error code, the
        runtime's message)."""
        buffer = ctypes.create_string_buffer(data, len(data))
        n = len(sizes)
        c_sizes = (ctypes.c_int64 * n)(*sizes)
        junk = (ctypes.c_int64 * n)(*([1] + [0] * (n - 1)))  # what inductor writes; never read
        handle = ctypes.c_void_p()
        code = self.create(buffer, n, c_sizes, junk, 0, dtype, 0, 0, ctypes.byref(handle), 3, md, len(md))
        if code != 0:
            return code, (self.lib.shimgen_runtime_last_error() or b"").decode()
        try:
            pointer, count = ctypes.c_void_p(), ctypes.c_int64()
            assert self.get_data_ptr(handle, ctypes.byref(pointer)) == 0
            assert self.get_numel(handle, ctypes.byref(count)) == 0
            kind = {6: np.float32, 1: np.int8}.get(dtype, np.uint16)
            raw = ctypes.string_at(pointer.value, count.value * np.dtype(kind).itemsize)
            return 0, np.frombuffer(raw, dtype=kind).reshape(sizes).copy()
        finally:
            self.delete(handle)


def _fields(md: bytes) -> tuple[int, list[int], list[int]]:
    """ndims, inner blocks and their dims, as src/mkldnn_layout.cpp reads them."""
    (nblks,) = struct.unpack_from("<i", md, 416)
    return (struct.unpack_from("<i", md, 4)[0], list(struct.unpack_from(f"<{nblks}q", md, 424)),
            list(struct.unpack_from(f"<{nblks}q", md, 520)))


def test_runtime_unpacks_what_torch_packed(packed, runtime_library):
    out, cases = packed
    assert {"linear_f32", "linear_bf16", "conv_grouped", "conv_depthwise", "deconv", "qlinear", "qconv"} <= set(cases)
    unpacker = Unpacker(runtime_library)
    blocked = 0
    for name, case in cases.items():
        md = (out / f"{name}.md").read_bytes()
        code, got = unpacker.unpack((out / f"{name}.data").read_bytes(), case["sizes"], case["dtype"], md)
        assert code == 0, f"{name}: {got}"
        expected = np.load(out / f"{name}.npy")
        assert isinstance(got, np.ndarray) and np.array_equal(got, expected), name
        blocked += bool(_fields(md)[1])
    assert blocked >= len(cases) // 2, "oneDNN chose plain formats for most weights: the blocked walk went untested"


def test_a_wrong_unpack_order_does_not_match(packed, runtime_library):
    """Control: the comparison above catches a wrong walk. Reversing the order of a multi-block
    format's inner blocks (oneDNN's outer-to-inner list read the other way) gives other values."""
    out, cases = packed
    unpacker = Unpacker(runtime_library)
    tried = 0
    for name, case in cases.items():
        md = bytearray((out / f"{name}.md").read_bytes())
        _, blks, idxs = _fields(bytes(md))
        if len(blks) < 2 or (blks == blks[::-1] and idxs == idxs[::-1]):
            continue
        struct.pack_into(f"<{len(blks)}q", md, 424, *blks[::-1])
        struct.pack_into(f"<{len(idxs)}q", md, 520, *idxs[::-1])
        code, got = unpacker.unpack((out / f"{name}.data").read_bytes(), case["sizes"], case["dtype"], bytes(md))
        assert code != 0 or not np.array_equal(got, np.load(out / f"{name}.npy")), name
        tried += 1
    assert tried, "no packed weight had two inner blocks"


def test_malformed_metadata_is_refused(packed, runtime_library):
    out, cases = packed
    unpacker = Unpacker(runtime_library)
    case = cases["linear_f32"]
    data, md = (out / "linear_f32.data").read_bytes(), (out / "linear_f32.md").read_bytes()

    def edited(*edits: tuple[int, str, int]) -> bytes:
        copy = bytearray(md)
        for offset, fmt, value in edits:
            struct.pack_into(fmt, copy, offset, value)
        return bytes(copy)

    refusals = {
        "shorter than": (md[:-1], INVALID),
        "format kind 3": (edited((312, "<i", 3)), UNSUPPORTED),  # dnnl_format_kind_opaque
        "ndims 13": (edited((4, "<i", 13)), INVALID),
        "do not match": (edited((8, "<q", 15)), INVALID),  # dims[0] 15 against the declared 16
        # one inner block, on dim 5 of a 2-d weight
        "out of range": (edited((416, "<i", 1), (424, "<q", 2), (520, "<q", 5)), INVALID),
        "data type 7": (edited((104, "<i", 7)), UNSUPPORTED),  # dnnl_f64
        "padded": (edited((112, "<q", 8)), INVALID),  # padded dim below the dim
    }
    for needle, (blob, want) in refusals.items():
        code, message = unpacker.unpack(data, case["sizes"], case["dtype"], blob)
        assert code == want and "mkldnn constant" in message and needle in message, (needle, code, message)


@pytest.fixture(scope="module")
def frozen() -> dict[str, Path]:
    torch_lib_dir()
    return aoti_zoo.ensure_compiled(NAMES, timeout=3600)


@pytest.fixture(scope="module")
def frozen_run(frozen, runtime_library, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("frozen")
    return run_zoo_beside_libtorch(frozen, runtime_library, work), work


@pytest.mark.parametrize("name", NAMES)
def test_frozen_model_imports_the_fused_ops(frozen, name):
    fallbacks = set(coverage.fallbacks_of(aoti_zoo.meta(frozen[name])["imports"]))
    assert EXPECTED_FALLBACKS.get(name, set()) <= fallbacks and fallbacks & FUSED, sorted(fallbacks)
    assert fallbacks <= coverage.served_by_runtime()


@pytest.mark.parametrize("name", NAMES)
def test_frozen_model_matches_eager_beside_libtorch(frozen, frozen_run, runtime_library, name):
    report, work = frozen_run
    assert_zoo_model_matches_eager(name, frozen[name], report, work, runtime_library, FROZEN[name].atol,
                                   FROZEN[name].rtol)


# ---- the int8 ops against torch's own oneDNN kernels (onednn::qlinear_pointwise.tensor,
# qconv_pointwise.tensor) on random operands: the same quantized outputs, element for element ----

ORACLE = r"""
import json, sys
from pathlib import Path
import numpy as np
import torch
out = Path(sys.argv[1])
torch.manual_seed(0)
cases = {}
def save(name, **arrays):
    for key, value in arrays.items():
        np.save(out / f"{name}.{key}.npy", value.numpy() if isinstance(value, torch.Tensor) else np.asarray(value))
for i, (dtype, post) in enumerate([(torch.uint8, "none"), (torch.uint8, "relu"), (torch.int8, "none"),
                                   (torch.float32, "relu")]):
    name = f"qlinear{i}"
    x = torch.randint(0, 256, (64, 96), dtype=torch.uint8)
    w = torch.randint(-128, 128, (48, 96), dtype=torch.int8)
    xs, xz = torch.tensor(0.02), torch.tensor(int(torch.randint(0, 256, ())), dtype=torch.int32)
    ws, b = torch.rand(48) * 0.01 + 0.001, torch.randn(48)
    os_, oz = 0.15, (128 if dtype == torch.uint8 else 0) if dtype != torch.float32 else 0
    os_ = 1.0 if dtype == torch.float32 else os_
    y = torch.ops.onednn.qlinear_pointwise.tensor(x, xs, xz, torch.ops.onednn.qlinear_prepack(w, list(x.shape)), ws,
                                                  torch.zeros(48, dtype=torch.int64), b, os_, oz, dtype, post, [None], "")
    save(name, x=x, w=w.t().contiguous(), xs=xs, xz=xz, ws=ws, b=b, y=y)
    cases[name] = {"op": "linear", "out_scale": os_, "out_zp": oz, "dtype": {torch.uint8: 0, torch.int8: 1, torch.float32: 6}[dtype], "post": post}
# Exact ties: unit scales, no bias, output scale 2, so an odd product lands on k + 0.5 (how torch's
# kernel rounds them is then in its output; small operands keep it off saturation).
for i, dtype in enumerate([torch.uint8, torch.int8]):
    name = f"qlinear_ties{i}"
    xz = torch.tensor(100, dtype=torch.int32)
    x = (torch.randint(-1, 2, (32, 96)) + 100).to(torch.uint8)
    w = torch.randint(-1, 2, (40, 96), dtype=torch.int8)
    xs, ws, b = torch.tensor(1.0), torch.ones(40), torch.zeros(40)
    oz = 128 if dtype == torch.uint8 else 0
    y = torch.ops.onednn.qlinear_pointwise.tensor(x, xs, xz, torch.ops.onednn.qlinear_prepack(w, list(x.shape)), ws,
                                                  torch.zeros(40, dtype=torch.int64), b, 2.0, oz, dtype, "none", [None], "")
    save(name, x=x, w=w.t().contiguous(), xs=xs, xz=xz, ws=ws, b=b, y=y)
    cases[name] = {"op": "linear", "out_scale": 2.0, "out_zp": oz, "dtype": {torch.uint8: 0, torch.int8: 1}[dtype], "post": "none"}
# Odd K, 70 output channels (two blocks of 32 and 6 more) and 7 rows (a block of 4 and 3 single
# rows): every remainder of the runtime's GEMMs; its weight as [K, N] rows and as [N, K] columns.
for i, columns in enumerate([False, True]):
    name = f"qlinear_odd{i}"
    x = torch.randint(0, 256, (7, 45), dtype=torch.uint8)
    w = torch.randint(-128, 128, (70, 45), dtype=torch.int8)
    xs, xz = torch.tensor(0.05), torch.tensor(int(torch.randint(0, 256, ())), dtype=torch.int32)
    ws, b = torch.rand(70) * 0.01 + 0.001, torch.randn(70)
    y = torch.ops.onednn.qlinear_pointwise.tensor(x, xs, xz, torch.ops.onednn.qlinear_prepack(w, list(x.shape)), ws,
                                                  torch.zeros(70, dtype=torch.int64), b, 0.2, 64, torch.uint8, "none", [None], "")
    save(name, x=x, w=w.t().contiguous(), xs=xs, xz=xz, ws=ws, b=b, y=y)
    cases[name] = {"op": "linear", "out_scale": 0.2, "out_zp": 64, "dtype": 0, "post": "none", "columns": columns}
for i, (groups, stride) in enumerate([(1, 1), (2, 2)]):
    name = f"qconv{i}"
    x = torch.randint(0, 256, (2, 8, 9, 9), dtype=torch.uint8).contiguous(memory_format=torch.channels_last)
    w = torch.randint(-128, 128, (16, 8 // groups, 3, 3), dtype=torch.int8)
    xs, xz = torch.tensor(0.02), torch.tensor(int(torch.randint(0, 256, ())), dtype=torch.int32)
    ws, b = torch.rand(16) * 0.01 + 0.001, torch.randn(16)
    packed = torch.ops.onednn.qconv_prepack(w, ws, float(xs), int(xz), [stride] * 2, [1, 1], [1, 1], groups, list(x.shape))
    y = torch.ops.onednn.qconv_pointwise.tensor(x, xs, xz, packed, ws, torch.zeros(16, dtype=torch.int64), b, [stride] * 2,
                                                [1, 1], [1, 1], groups, 0.3, 100, torch.uint8, "relu", [None], "")
    save(name, x=x.contiguous(), w=w, xs=xs, xz=xz, ws=ws, b=b, y=y.contiguous())
    cases[name] = {"op": "conv", "out_scale": 0.3, "out_zp": 100, "dtype": 0, "post": "relu", "groups": groups, "stride": stride}
(out / "cases.json").write_text(json.dumps(cases))
"""


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> tuple[Path, dict]:
    return _torch_cases(tmp_path_factory, "oracle", ORACLE)


class QuantOps:
    """The runtime's int8 ops through ctypes, on numpy arrays (dense weights: the unpack is tested above)."""

    CODES: ClassVar[dict[np.dtype, int]] = {np.dtype(np.uint8): 0, np.dtype(np.int8): 1, np.dtype(np.int32): 3, np.dtype(np.int64): 4,
             np.dtype(np.float32): 6}

    def __init__(self, library: Path) -> None:
        self.lib = ctypes.CDLL(str(library))
        self.lib.shimgen_runtime_last_error.restype = ctypes.c_char_p
        self.keep: list = []

    def handle(self, array: np.ndarray, *, as_laid_out: bool = False) -> ctypes.c_void_p:
        """A runtime tensor over the array's memory: contiguous, or with its own strides (as_laid_out)."""
        array = array if as_laid_out else np.ascontiguousarray(array)
        self.keep.append(array)
        n = array.ndim
        sizes = (ctypes.c_int64 * max(n, 1))(*array.shape)
        strides = (ctypes.c_int64 * max(n, 1))(*[s // array.itemsize for s in array.strides])
        h = ctypes.c_void_p()
        create = getattr(self.lib, PREFIX + "aoti_torch_create_tensor_from_blob")
        assert create(ctypes.c_void_p(array.ctypes.data), ctypes.c_int64(n), sizes, strides, ctypes.c_int64(0),
                      ctypes.c_int32(self.CODES[array.dtype]), ctypes.c_int32(0), ctypes.c_int32(0),
                      ctypes.byref(h)) == 0
        return h

    def result(self, h: ctypes.c_void_p, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        pointer, count = ctypes.c_void_p(), ctypes.c_int64()
        assert getattr(self.lib, PREFIX + "aoti_torch_get_data_ptr")(h, ctypes.byref(pointer)) == 0
        assert getattr(self.lib, PREFIX + "aoti_torch_get_numel")(h, ctypes.byref(count)) == 0
        raw = ctypes.string_at(pointer.value, count.value * np.dtype(dtype).itemsize)
        return np.frombuffer(raw, dtype=dtype).copy()

    def run(self, case: dict, a: dict[str, np.ndarray]) -> np.ndarray:
        x, w, xs, xz, ws, b = (self.handle(a[k]) for k in ("x", "w", "xs", "xz", "ws", "b"))
        if case.get("columns"):  # the same [K, N] weight with each output channel's K values contiguous
            w = self.handle(np.ascontiguousarray(a["w"].T).T, as_laid_out=True)
        wz = self.handle(np.zeros(a["ws"].shape, dtype=np.int64))
        dtype = ctypes.c_int32(case["dtype"])
        args = (ctypes.c_void_p * 1)(None)
        ret = ctypes.c_void_p()
        bias = ctypes.pointer(b)
        if case["op"] == "linear":
            fn = getattr(self.lib, PREFIX + "aoti_torch_cpu__qlinear_pointwise_tensor")
            code = fn(x, xs, xz, w, ws, wz, bias, ctypes.c_double(case["out_scale"]), ctypes.c_int64(case["out_zp"]),
                      ctypes.byref(dtype), case["post"].encode(), args, ctypes.c_int64(1), b"", ctypes.byref(ret))
        else:
            fn = getattr(self.lib, PREFIX + "aoti_torch_cpu__qconv_pointwise_tensor")
            stride = (ctypes.c_int64 * 2)(case["stride"], case["stride"])
            one = (ctypes.c_int64 * 2)(1, 1)
            algorithm = ctypes.c_char_p(b"")
            code = fn(x, xs, xz, w, ws, wz, bias, stride, ctypes.c_int64(2), one, ctypes.c_int64(2), one,
                      ctypes.c_int64(2), ctypes.c_int64(case["groups"]), ctypes.c_double(case["out_scale"]),
                      ctypes.c_int64(case["out_zp"]), ctypes.byref(dtype), case["post"].encode(), args,
                      ctypes.c_int64(1), ctypes.byref(algorithm), ctypes.byref(ret))
        assert code == 0, (self.lib.shimgen_runtime_last_error() or b"").decode()
        kind = {0: np.uint8, 1: np.int8, 6: np.float32}[case["dtype"]]
        return self.result(ret, np.dtype(kind), a["y"].shape)


def test_int8_ops_match_torchs_onednn_kernels(oracle, runtime_library):
    """Every quantized output equals torch's own kernel's: the int32 products, the scales, bias and
    post-op, and the requantization's rounding and saturation (uint8 and int8 outputs, ~3000-element
    results with random zero points and scales); float32 output to float rounding. The qlinear_odd
    cases reach every remainder of the runtime's GEMM kernels, with either weight layout. The qlinear_ties
    cases are built so that half their outputs are exact ties before rounding: rounding them half
    away from zero (std::round) fails here, as it fails the native test. torch ran its
    convolutions on channels-last X; the runtime gets the same values contiguous (its result then
    contiguous too)."""
    out, cases = oracle
    ops = QuantOps(runtime_library)
    assert len(cases) == 10
    for name, case in cases.items():
        a = {p.name.split(".")[1]: np.load(p) for p in out.glob(f"{name}.*.npy")}
        want = a["y"]
        got = ops.run(case, a).reshape(want.shape)
        if case["dtype"] == 6:
            assert np.abs(got - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max())), name
        else:
            assert np.array_equal(got, want), (name, int(np.sum(got != want)), want.size)
