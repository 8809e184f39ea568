"""The CPU-only build's CUDA op stubs are generated from shim_cuda_ops.h and kept in step."""

from __future__ import annotations

from pathlib import Path

from shimgen.generate.stubs import cuda_stubs
from shimgen.project.headers import scan_text
from tests.support import load_script

REPO = Path(__file__).resolve().parents[2]


def test_committed_stubs_match_the_header():
    generator = load_script("gen_cuda_stubs")
    assert generator.TARGET.read_text(encoding="utf-8") == generator.expected(), \
        "shimgen/runtime/src/ops/cuda_unsupported.cpp is stale: run python scripts/gen_cuda_stubs.py"


def test_every_declared_cuda_op_gets_one_stub_with_its_signature():
    header = """
    #include "x.h"
    /* comment AOTI_SHIM_EXPORT */
    AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_a(AtenTensorHandle* ret0, const int64_t* size,
                                                      int64_t size_len_);
    #ifdef X
    AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_b(double v);
    #endif
    SHIMGEN_RUNTIME_API int not_a_shim(void);
    """
    text = cuda_stubs(header, "h.h")
    assert text.splitlines()[0].endswith("do not edit")
    assert "AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_a(AtenTensorHandle* ret0, const int64_t* size, " \
           "int64_t size_len_) {" in text
    assert "AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_b(double v) {" in text
    assert text.count("return unsupported(__func__);") == 2
    assert "not_a_shim" not in text


def test_stub_names_are_the_header_scan_names():
    header = (REPO / "shimgen" / "runtime" / "include" / "shimgen_runtime" / "shim_cuda_ops.h").read_text()
    declared = [d.name for d in scan_text(header, "AOTI_SHIM_EXPORT")]
    stubs = (REPO / "shimgen" / "runtime" / "src" / "ops" / "cuda_unsupported.cpp").read_text()
    assert declared and all(f" {name}(" in stubs for name in declared)
