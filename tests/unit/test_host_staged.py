"""The host-staged CUDA ops generated from shim_cpu_ops.h (shimgen/generate/host_staged.py): the
checked-in header block, wrappers and CPU-only stubs are in step with the JSON list; the generator
classifies parameters (inputs, optional inputs, results, out-variants) and refuses what it cannot
stage; the generated wrappers compile (as C++: host_staged.h needs no CUDA header)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shimgen.errors import ConfigError
from shimgen.generate import host_staged

REPO = Path(__file__).resolve().parents[2]
SAMPLE = """
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim,
                                                       int32_t keepdim, AtenTensorHandle* ret0, AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__int_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                          AtenTensorHandle mat2);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_segment_reduce(AtenTensorHandle data, const char* reduce,
                                                             AtenTensorHandle* lengths, double* initial,
                                                             AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_Tensor(AtenTensorHandle self, const AtenTensorHandle** indices,
                                                           int64_t indices_len_, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randn(const int64_t* size, int64_t size_len_, AtenTensorHandle* ret0);
"""


def test_checked_in_files_are_in_step():
    completed = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_host_staged.py"), "--check"],
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr


def test_wrappers_stage_inputs_results_and_out_variants():
    ops = host_staged.host_staged_ops(SAMPLE, ["kthvalue", "_int_mm_out", "segment_reduce"])
    assert [p.kind for p in ops[2].params] == ["tensor", "other", "optional", "other", "result"]
    assert ops[1].out_variant and not ops[0].out_variant
    text = host_staged.source(ops, "shim_cpu_ops.h")
    assert "aoti_torch_cpu_kthvalue(s.host(self), k, dim, keepdim, &r[0], &r[1])" in text
    assert 's.run("kthvalue", {ret0, ret1},' in text
    assert "AtenTensorHandle host_out = s.host(out);" in text
    assert "aoti_torch_cpu__int_mm_out(host_out, s.host(self), s.host(mat2))" in text
    assert "s.copy_back(out, host_out);" in text
    assert "aoti_torch_cpu_segment_reduce(s.host(data), reduce, s.host(lengths), initial, &r[0])" in text
    block = host_staged.declarations(ops)
    assert "aoti_torch_cuda_segment_reduce(AtenTensorHandle data, const char* reduce, AtenTensorHandle* lengths," in block
    assert block.startswith(host_staged.BEGIN) and block.endswith(host_staged.END)


def test_a_generator_argument_passes_through():
    # aten.uniform's generator (AtenGeneratorHandle*) is not a tensor: handed to the CPU op as given
    # (which refuses a non-null one), not staged.
    header = ("AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_uniform(AtenTensorHandle self, double from, double to,"
              " AtenGeneratorHandle* generator, AtenTensorHandle* ret0);")
    (op,) = host_staged.host_staged_ops(header, ["uniform"])
    assert [p.kind for p in op.params] == ["tensor", "other", "other", "other", "result"]
    assert "aoti_torch_cpu_uniform(s.host(self), from, to, generator, &r[0])" in host_staged.source([op], "h")


@pytest.mark.parametrize("name, message", [
    ("index_Tensor", "list of tensors"),  # a list of handles needs a hand-written wrapper
    ("randn", "no tensor input"),          # a creation op has no device to take
    ("sort", "declares no aoti_torch_cpu_sort"),
])
def test_refuses_what_it_cannot_stage(name, message):
    with pytest.raises(ConfigError, match=message):
        host_staged.host_staged_ops(SAMPLE, [name])


def test_refuses_a_malformed_list_and_a_header_without_markers():
    with pytest.raises(ConfigError):
        host_staged.listed('{"ops": ["ok", "no spaces allowed"]}')
    with pytest.raises(ConfigError, match="markers"):
        host_staged.with_declarations("/* no block */", "x")


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")
def test_generated_wrappers_compile(tmp_path):
    """The checked-in generated source, plus wrappers for every CPU op the generator can stage (the
    whole of shim_cpu_ops.h, not only the listed ones), compile against the runtime's headers."""
    include = REPO / "shimgen" / "runtime" / "include"
    cpu_header = (include / "shimgen_runtime" / "shim_cpu_ops.h").read_text()
    stageable = []
    for name, _ in host_staged.exported_statements(cpu_header, "AOTI_SHIM_EXPORT"):
        op = name.removeprefix("aoti_torch_cpu_")
        try:
            stageable += host_staged.host_staged_ops(cpu_header, [op])
        except ConfigError:
            continue
    assert len(stageable) > 20, [o.op for o in stageable]
    # The CUDA names of all of them declared, so the wrappers' definitions check against a prototype.
    decls = host_staged.declarations(stageable).replace("AOTI_SHIM_EXPORT", 'extern "C" AOTI_SHIM_EXPORT')
    extra = tmp_path / "all.cpp"
    extra.write_text('#include "shimgen_runtime/shim.h"\n' + decls + "\n"
                     + host_staged.source(stageable, "shim_cpu_ops.h").replace('#include "host_staged.h"',
                                                                                 '#include "ops/cuda/host_staged.h"'))
    generated = REPO / "shimgen" / "runtime" / "src" / "ops" / "cuda" / "host_staged_generated.cu"
    exports = tmp_path / "generated"  # export.h, as the runtime's build generates it
    made = subprocess.run([sys.executable, "-m", "shimgen", "generate", "-q", "-c",
                           str(REPO / "shimgen" / "runtime" / "shimgen.toml"), "-o", str(exports), "--skip-cmake"],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert made.returncode == 0, made.stderr
    for source in (extra, generated):
        completed = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-x", "c++", str(source),
                                    f"-I{include}", f"-I{exports}", f"-I{REPO / 'shimgen' / 'runtime' / 'src'}",
                                    f"-I{REPO / 'shimgen' / 'runtime' / 'src' / 'ops' / 'cuda'}"],
                                   capture_output=True, text=True, check=False)
        assert completed.returncode == 0, completed.stderr[-3000:]
