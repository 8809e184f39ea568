"""Real architectures for the zoo (tests/aoti_zoo.py): transformers' models built from small random
configs in code (no download, ``use_cache=False``), plus the op shapes sampling and MoE code uses.

Each entry is a ``ZooModel`` like the six of aoti_zoo.ZOO (source text, so the compile cache is keyed
by it); ``aoti_zoo.ensure_compiled`` compiles them the same way (``torch.export`` +
``aoti_compile_and_package``, stock inductor settings, ``link_libtorch=False`` unless asked).
The CI subset is ``CI``; scripts/zoo_cpu.py runs them all and prints the pass table.
"""

from __future__ import annotations

from aoti_zoo import Input, ZooModel

# A decoder's small shape: 2 layers, 4 heads (2 KV heads: grouped-query attention), head_dim 16.
_DECODER = ("vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, "
            "num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64")
_TOKENS = (Input((2, 12), "index:128"), Input((2, 12), "ones"))


def _causal_lm(config: str, model: str, extra: str = "") -> str:
    return (f"from transformers import {config}, {model}\n"
            f"self.m = {model}({config}({_DECODER}{extra})).eval()")


_LM_FORWARD = "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits"
# As generate() calls a decoder on a left-padded batch: position ids from the mask's running sum.
_LM_GENERATE_FORWARD = ("p = y.cumsum(-1) - 1\np = p.masked_fill(y == 0, 1)\n"
                        "return self.m(input_ids=x, attention_mask=y, position_ids=p, use_cache=False).logits")
_PADDED_TOKENS = (Input((2, 12), "index:128"), Input((2, 12), "leftpad:3"))

ARCH: dict[str, ZooModel] = {
    "llama": ZooModel(_causal_lm("LlamaConfig", "LlamaForCausalLM"), _LM_FORWARD, _TOKENS, 1e-4),
    # A decoder served in bfloat16 (weights and activations): what bf16 GEMM and attention it needs.
    "llama_bf16": ZooModel(_causal_lm("LlamaConfig", "LlamaForCausalLM") + ".to(torch.bfloat16)",
                           "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits.float()",
                           _TOKENS, 0.05),
    "qwen2": ZooModel(_causal_lm("Qwen2Config", "Qwen2ForCausalLM"), _LM_GENERATE_FORWARD, _PADDED_TOKENS, 1e-4),
    "gemma3": ZooModel(_causal_lm("Gemma3TextConfig", "Gemma3ForCausalLM",
                                  ", head_dim=16, sliding_window=8"), _LM_FORWARD, _TOKENS, 1e-4),
    "mixtral": ZooModel(_causal_lm("MixtralConfig", "MixtralForCausalLM",
                                   ", num_local_experts=4, num_experts_per_tok=2"), _LM_FORWARD, _TOKENS, 1e-4),
    # The MoE served in bfloat16: transformers' experts call torch._grouped_mm (aoti_torch_cpu__grouped_mm),
    # and group tokens with an unstable torch.sort of the expert ids. Every token takes all four experts:
    # with top-2 of 4, eager's router margins under random weights are a bfloat16 ulp or two, and the
    # rounding of any kernels but eager's own flips tokens to another expert (measured at top-2: one
    # token of layer 2, logits -0.0283 against -0.0275, moved the logits 0.07 from eager's).
    "mixtral_bf16": ZooModel(_causal_lm("MixtralConfig", "MixtralForCausalLM",
                                        ", num_local_experts=4, num_experts_per_tok=4") + ".to(torch.bfloat16)",
                             "return self.m(input_ids=x, attention_mask=y, use_cache=False).logits.float()",
                             _TOKENS, 0.05),
    # The same MoE with transformers' batched_mm experts: bmm instead of the grouped-mm custom op
    # (which the default, grouped_mm, reaches on the CPU through the proxy executor).
    "mixtral_batched": ZooModel(
        "from transformers import MixtralConfig, MixtralForCausalLM\n"
        f"config = MixtralConfig({_DECODER}, num_local_experts=4, num_experts_per_tok=2)\n"
        "config._experts_implementation = 'batched_mm'\n"
        "self.m = MixtralForCausalLM(config).eval()", _LM_FORWARD, _TOKENS, 1e-4),
    "gpt2": ZooModel(
        "from transformers import GPT2Config, GPT2LMHeadModel\n"
        "self.m = GPT2LMHeadModel(GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4)).eval()",
        _LM_GENERATE_FORWARD, _PADDED_TOKENS, 1e-4),
    "bert": ZooModel(
        "from transformers import BertConfig, BertModel\n"
        "self.m = BertModel(BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,"
        " intermediate_size=128, max_position_embeddings=64)).eval()",
        "return self.m(input_ids=x, attention_mask=y).last_hidden_state", _TOKENS, 1e-4),
    "whisper_encoder": ZooModel(
        "from transformers import WhisperConfig\n"
        "from transformers.models.whisper.modeling_whisper import WhisperEncoder\n"
        "self.m = WhisperEncoder(WhisperConfig(num_mel_bins=16, d_model=64, encoder_layers=2,"
        " encoder_attention_heads=4, encoder_ffn_dim=128, max_source_positions=16)).eval()",
        "return self.m(x).last_hidden_state", (Input((2, 16, 32)),), 1e-4),
    "vit": ZooModel(
        "from transformers import ViTConfig, ViTModel\n"
        "self.m = ViTModel(ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2,"
        " num_attention_heads=4, intermediate_size=128)).eval()",
        "return self.m(pixel_values=x).last_hidden_state", (Input((2, 3, 32, 32)),), 1e-4),
    "resnet": ZooModel(
        "from transformers import ResNetConfig, ResNetModel\n"
        "self.m = ResNetModel(ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1])).eval()",
        "return self.m(pixel_values=x).pooler_output", (Input((2, 3, 32, 32)),), 1e-4),
    "convnext": ZooModel(
        "from transformers import ConvNextConfig, ConvNextModel\n"
        "self.m = ConvNextModel(ConvNextConfig(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], image_size=32)).eval()",
        "return self.m(pixel_values=x).pooler_output", (Input((2, 3, 32, 32)),), 1e-4),
    "lstm": ZooModel(
        "self.m = torch.nn.LSTM(16, 32, num_layers=2, batch_first=True).eval()",
        "out, (h, c) = self.m(x)\nreturn out, h, c", (Input((2, 10, 16)),), 1e-5),
    # A bidirectional LSTM (each direction one layer call, the backward one with reverse=1) and a GRU.
    "birnn": ZooModel(
        "self.lstm = torch.nn.LSTM(16, 24, batch_first=True, bidirectional=True).eval()\n"
        "self.gru = torch.nn.GRU(48, 8, batch_first=True).eval()",
        "y, (h, c) = self.lstm(x)\nz, g = self.gru(y)\nreturn y, h, c, z, g", (Input((2, 7, 16)),), 1e-5),
    # Top-k / top-p sampling's deterministic part: topk, a stable descending sort, a cumulative sum.
    "sampling": ZooModel(
        "",
        "v, i = torch.topk(x, 8, dim=-1)\n"
        "s, j = torch.sort(x, dim=-1, descending=True, stable=True)\n"
        "return v, i, j, torch.cumsum(torch.softmax(s, dim=-1), dim=-1)",
        (Input((4, 64)),), 1e-5),
    # MoE routing and scatter-style accumulation: histc of expert ids, scatter_add, scatter_reduce.
    "routing": ZooModel(
        "",
        "e = torch.topk(x, 2, dim=-1).indices\n"
        "counts = torch.histc(e.float(), bins=8, min=0, max=7)\n"
        "acc = torch.zeros(8, x.shape[1]).scatter_add(0, e[:, :1].expand(-1, x.shape[1]), x)\n"
        "peak = torch.full((8, x.shape[1]), -1.0).scatter_reduce(0, e[:, 1:].expand(-1, x.shape[1]), x, 'amax')\n"
        "return counts, acc, peak",
        (Input((16, 8)),), 1e-5),
    # Random draws inside the model (noise, dropout-free sampling): outputs that hold for any correct
    # uniform source, so they compare with eager exactly (mean of 4096 draws, range checks).
    "random": ZooModel(
        "",
        "u = torch.rand(4096) + 0 * x.sum()\n"
        "r = torch.randint(3, 7, (4096,))\n"
        "return (u.mean() * 10).round(), ((u >= 0) & (u < 1)).all(), r.min(), r.max()",
        (Input((2, 8)),), 0.0),
    # Sampling a token: torch.multinomial from softmax probabilities (all mass on one token per row, so
    # any correct sampler picks it) and Gumbel-style noise from exponential_.
    "multinomial": ZooModel(
        "",
        "p = torch.softmax(x * 1000, dim=-1)\n"
        "pick = torch.multinomial(p, 1)\n"
        "e = torch.empty(4096).exponential_() + 0 * x.sum()\n"
        "return pick, (e.mean() * 10).round(), (e >= 0).all()",
        (Input((4, 32)),), 0.0),
}

# The slow-marked CI subset (tests/integration/test_arch_zoo.py): a decoder taking generate-style
# position ids (cumsum, mm, addmm, SDPA). Kept to one model: CI installs transformers since
# [test] names it, and compiling costs about 40 s a model on 2 cores; the MoE path (topk, the proxy
# executor) is tests/integration/test_proxy_executor.py's, the sampling shapes the ring subset's
# (top_p, order_stats). scripts/zoo_cpu.py runs them all.
CI = ("qwen2",)
