"""Models compiled with inductor's ``freezing=True`` (torch's recommended CPU setting for
AOTInductor): the mkldnn fusion passes then emit oneDNN-fused ops (``_linear_pointwise``,
``mkldnn__convolution_pointwise`` and their binary / transposed forms) with prepacked weights in
oneDNN's blocked layout, which the runtime unpacks when the model creates its constants.

Each entry is a ``ZooModel`` with ``freezing=True`` (part of its cache key), compiled by
``aoti_zoo.ensure_compiled`` like the rest. ``CI`` is the subset tests/integration/test_frozen.py
runs; ``python scripts/zoo_cpu.py --frozen`` runs them all (the Llama, BERT and ViT compiles take
minutes on two cores).
"""

from __future__ import annotations

from aoti_zoo import Input, ZooModel

_DECODER = ("vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, "
            "num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64")
_LLAMA = f"from transformers import LlamaConfig, LlamaForCausalLM\nself.m = LlamaForCausalLM(LlamaConfig({_DECODER})).eval()"
_TOKENS = (Input((2, 12), "index:128"), Input((2, 12), "ones"))

# Every unary post-op inductor's mkldnn fusion passes (torch/_inductor/fx_passes/mkldnn_fusion.py)
# fuse into a Linear and a convolution, and the binary sub: one head each on f ([rows, 32]) and on a
# feature map h ([N, 8, H, W]).
_HEADS_INIT = ("self.l = torch.nn.ModuleList([torch.nn.Linear(32, 32) for _ in range(9)])\n"
               "self.k = torch.nn.ModuleList([torch.nn.Conv2d(8, 4, 3, padding=1) for _ in range(5)])\n")
_F = "torch.nn.functional"
_HEADS = [f"{_F}.gelu(self.l[0](f), approximate='tanh')", "torch.sigmoid(self.l[1](f))", f"{_F}.silu(self.l[2](f))",
          f"{_F}.hardswish(self.l[3](f))", f"{_F}.leaky_relu(self.l[4](f), 0.1)",
          f"{_F}.hardtanh(self.l[5](f), -0.5, 0.5)", f"{_F}.hardsigmoid(self.l[6](f))", "torch.tanh(self.l[7](f))",
          "self.l[8](f) - f", f"{_F}.leaky_relu(self.k[0](h), 0.2)", f"{_F}.hardtanh(self.k[1](h), -1.0, 1.0)",
          "torch.sigmoid(self.k[2](h))", f"{_F}.gelu(self.k[3](h))", "torch.tanh(self.k[4](h))"]


def _half_heads(dtype: str) -> ZooModel:
    """The heads alone in a 16-bit dtype: f [4, 32] and h [2, 8, 8, 8] from the float32 inputs."""
    outputs = ", ".join(f"({head}).float()" for head in _HEADS)
    return ZooModel(_HEADS_INIT + f"self.to(torch.{dtype})",
                    f"f = x.to(torch.{dtype})\nh = y.to(torch.{dtype})\nreturn {outputs}",
                    (Input((4, 32)), Input((2, 8, 8, 8))), 0.05, freezing=True)


FROZEN: dict[str, ZooModel] = {
    # Every fused form a CNN + MLP head gets: conv + BN folded + relu, a residual conv block
    # (conv binary add + relu), a grouped conv + SiLU, a strided grouped ConvTranspose + relu, Linear + GELU,
    # a Linear residual (linear binary add), a conv + hardswish head, and every other post-op.
    "frozen_cnn": ZooModel(
        "self.stem = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)\nself.bn = torch.nn.BatchNorm2d(8)\n"
        "self.c1 = torch.nn.Conv2d(8, 8, 3, padding=1)\nself.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)\n"
        "self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=4)\n"
        "self.up = torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1, groups=2)\n"
        "self.fc1 = torch.nn.Linear(4 * 16 * 16, 32)\nself.fc2 = torch.nn.Linear(32, 32)\n"
        "self.fc3 = torch.nn.Linear(32, 10)\nself.head = torch.nn.Conv2d(8, 6, 1)\n" + _HEADS_INIT +
        "torch.nn.init.uniform_(self.bn.running_mean, -0.5, 0.5)\ntorch.nn.init.uniform_(self.bn.running_var, 0.5, 2)",
        "h = torch.relu(self.bn(self.stem(x)))\n"
        "h = torch.relu(self.c2(torch.relu(self.c1(h))) + h)\n"
        "h = torch.nn.functional.silu(self.dw(h))\n"
        "u = torch.relu(self.up(h))\n"
        "f = torch.nn.functional.gelu(self.fc1(u.flatten(1)))\n"
        "f = self.fc2(f) + f\n"
        "return self.fc3(torch.tanh(f)), torch.nn.functional.hardswish(self.head(h)), " + ", ".join(_HEADS),
        (Input((2, 3, 8, 8)),), 1e-4, freezing=True),
    # The tiny Llama of tests/arch_zoo.py, frozen: _linear_pointwise (q/k/v, gate/up with SiLU) and
    # _linear_pointwise_binary (o_proj and down_proj with the residual add).
    "frozen_llama": ZooModel(_LLAMA, "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits",
                             _TOKENS, 1e-4, freezing=True),
    "frozen_llama_bf16": ZooModel(_LLAMA + ".to(torch.bfloat16)",
                                  "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits.float()",
                                  _TOKENS, 0.05, freezing=True),
    "frozen_bert": ZooModel(
        "from transformers import BertConfig, BertModel\n"
        "self.m = BertModel(BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,"
        " intermediate_size=128, max_position_embeddings=64)).eval()",
        "return self.m(input_ids=x, attention_mask=y).last_hidden_state", _TOKENS, 1e-4, freezing=True),
    "frozen_vit": ZooModel(
        "from transformers import ViTConfig, ViTModel\n"
        "self.m = ViTModel(ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2,"
        " num_attention_heads=4, intermediate_size=128)).eval()",
        "return self.m(pixel_values=x).last_hidden_state", (Input((2, 3, 32, 32)),), 1e-4, freezing=True),
    "frozen_resnet": ZooModel(
        "from transformers import ResNetConfig, ResNetModel\n"
        "self.m = ResNetModel(ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1])).eval()",
        "return self.m(pixel_values=x).pooler_output", (Input((2, 3, 32, 32)),), 1e-4, freezing=True),
    "frozen_heads_bf16": _half_heads("bfloat16"),
    "frozen_heads_f16": _half_heads("float16"),
    # PT2E int8 (X86InductorQuantizer, static: per-tensor activations, per-channel weights), then
    # freezing: int8 oneDNN ops (qlinear_pointwise.tensor / .binary_tensor, qconv_pointwise.tensor,
    # qconv2d_pointwise.binary_tensor) with prepacked int8 weights. The reference is the converted
    # model in eager (float arithmetic between quantize / dequantize); both the runtime and torch's
    # own loader match it to float rounding (measured: docs/aoti.md), so a requantization that rounds
    # one value to the neighbouring int8 step (a wrong zero point, rounding mode or scale) fails.
    "frozen_q8_mlp": ZooModel(
        "self.fc1 = torch.nn.Linear(32, 64)\nself.fc2 = torch.nn.Linear(64, 64)\nself.fc3 = torch.nn.Linear(64, 10)",
        "h = torch.relu(self.fc1(x))\nh = self.fc2(h) + h\nreturn self.fc3(torch.relu(h))",
        (Input((8, 32)),), 1e-5, freezing=True, quantize="static"),
    "frozen_q8_cnn": ZooModel(
        "self.stem = torch.nn.Conv2d(3, 16, 3, padding=1, bias=False)\nself.bn = torch.nn.BatchNorm2d(16)\n"
        "self.c1 = torch.nn.Conv2d(16, 16, 3, padding=1)\nself.c2 = torch.nn.Conv2d(16, 16, 3, padding=1)\n"
        "self.down = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=2)\nself.fc = torch.nn.Linear(32 * 4 * 4, 10)\n"
        "torch.nn.init.uniform_(self.bn.running_mean, -0.5, 0.5)\ntorch.nn.init.uniform_(self.bn.running_var, 0.5, 2)",
        "h = torch.relu(self.bn(self.stem(x)))\n"
        "h = torch.relu(self.c2(torch.relu(self.c1(h))) + h)\n"
        "h = torch.relu(self.down(h))\n"
        "return self.fc(h.flatten(1))",
        (Input((2, 3, 8, 8)),), 1e-5, freezing=True, quantize="static"),
    # The tiny Llama, static (every projection a qlinear) and dynamic (activation scales computed
    # per call: is_dynamic=True). BERT is not here: torchao 0.18's X86InductorQuantizer fails to
    # annotate its exported graph (IndexError in _get_output_nodes_of_partitions, Linear + GELU).
    "frozen_q8_llama": ZooModel(_LLAMA, "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits",
                                _TOKENS, 0.02, freezing=True, quantize="static"),
    "frozen_q8_llama_dynamic": ZooModel(_LLAMA, "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits",
                                        _TOKENS, 0.02, freezing=True, quantize="dynamic"),
}

CI = ("frozen_cnn", "frozen_q8_mlp")
