"""Models quantized with ``torchao.quantization.quantize_`` (torchao 0.18's weight-only and dynamic
configs, ``aoti_zoo.TORCHAO_CONFIGS``), compiled by stock AOTInductor on CPU like the rest of the zoo
(``link_libtorch=False``; default inductor settings, plus what each config's
``set_inductor_config=True`` sets; freezing only where named).

Each entry is a ``ZooModel`` whose ``quantize`` names the config (part of its cache key, with
torchao's version). The eager reference is the quantized module; the float model's outputs are kept
too (``float_out<i>.npy``), for the control that the quantization shows at the model's tolerance.
``CI`` is the subset tests/integration/test_torchao.py runs; ``SHIMGEN_TORCHAO_ALL=1`` runs them all
there (the Llamas take about 15 s each to compile on two cores).

What each lowers to (torch 2.13.0+cpu, torchao 0.18.0, measured; docs/aoti.md "torchao quantize_
configs"): int8 weight-only on float32 dequantizes in a generated kernel and multiplies with
``mm_out``; on bfloat16 inductor emits ``_weight_int8pack_mm``, and with freezing ``_linear_pointwise``
on the dequantized weight; int8 dynamic activation + int8 weight emits ``_int_mm_out`` (the activation
quantized per row in a generated kernel); float8 weight-only and the intx (int4) configs dequantize
in generated code and call ``mm_out`` / ``addmm_out``.
"""

from __future__ import annotations

from aoti_zoo import Input, ZooModel
from frozen_zoo import _LLAMA, _TOKENS

_MLP = "self.a = torch.nn.Linear(64, 128)\nself.b = torch.nn.Linear(128, 64)"
_MLP_FORWARD = "return self.b(torch.nn.functional.gelu(self.a(x)))"
_MLP_BF16 = _MLP + "\nself.to(torch.bfloat16)"
_MLP_BF16_FORWARD = "return self.b(torch.nn.functional.gelu(self.a(x.to(torch.bfloat16)))).float()"
_X = (Input((4, 64)),)
_LOGITS = "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits"


def _mlp(quantize: str, atol: float = 1e-5, **extra) -> ZooModel:
    return ZooModel(_MLP, _MLP_FORWARD, _X, atol, quantize=quantize, **extra)


def _mlp_bf16(quantize: str, **extra) -> ZooModel:
    return ZooModel(_MLP_BF16, _MLP_BF16_FORWARD, _X, 0.02, quantize=quantize, **extra)


def _llama(quantize: str, atol: float = 1e-4) -> ZooModel:
    return ZooModel(_LLAMA, _LOGITS, _TOKENS, atol, quantize=quantize)


TORCHAO: dict[str, ZooModel] = {
    # int8 weight-only (Int8WeightOnlyConfig, per-row): float32 -> dequantize + mm_out
    "tao_int8wo_mlp": _mlp("int8wo"),
    # bfloat16 -> aten._weight_int8pack_mm (the runtime's weight_int8pack_mm.cpp)
    "tao_int8wo_mlp_bf16": _mlp_bf16("int8wo"),
    # ... and with freezing: _linear_pointwise on the dequantized weight
    "tao_int8wo_mlp_bf16_frozen": _mlp_bf16("int8wo", freezing=True),
    # int8 dynamic activation (per row, symmetric) + int8 weight -> _int_mm_out
    "tao_int8dyn_mlp": _mlp("int8dyn"),
    "tao_fp8wo_mlp": _mlp("fp8wo"),
    "tao_intx4wo_mlp": _mlp("intx4wo"),
    "tao_int8dyn_intx4_mlp": _mlp("int8dyn-intx4"),
    "tao_int8wo_llama": _llama("int8wo"),
    "tao_int8wo_llama_bf16": ZooModel(_LLAMA + ".to(torch.bfloat16)", _LOGITS + ".float()", _TOKENS, 0.02,
                                      quantize="int8wo"),
    # A dynamically quantized activation one rounding step apart moves a logit by ~1e-3 (torch's own
    # loader is 6.5e-3 from eager here): the PT2E dynamic Llama's tolerance.
    "tao_int8dyn_llama": _llama("int8dyn", 0.02),
    "tao_fp8wo_llama": _llama("fp8wo"),
    "tao_intx4wo_llama": _llama("intx4wo"),
    "tao_int8dyn_intx4_llama": _llama("int8dyn-intx4"),
}

CI = ("tao_int8wo_mlp_bf16", "tao_int8dyn_mlp")
