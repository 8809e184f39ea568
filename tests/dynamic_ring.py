"""The dynamic ring: models exported with ``torch.export`` dynamic shapes (``Dim``), as LLMs, encoders
and image and speech models are shipped (batch and sequence length, audio length, image size
dynamic), each run at several shapes on one compiled package and compared with eager at each.

Entries are ``ZooModel``s (tests/aoti_zoo.py) whose ``dims`` name the dynamic dims, whose inputs'
``dynamic`` place them, and whose ``runs`` are the shapes besides the export's example one. Most reuse
a static model of tests/arch_zoo.py or tests/arch_ring.py (same source: only the export differs).
Every model runs at its example shape, a smaller and a larger batch or sequence, and at least one
shape export never saw; token models take left-padded attention masks (row 0 starts with zeros).
``aoti_zoo.models()`` includes them. ``python scripts/zoo_cpu.py --dynamic`` runs them all beside
libtorch; ``CI`` is the cheap subset tests/integration/test_dynamic_ring.py runs.
"""

from __future__ import annotations

from dataclasses import replace

from aoti_zoo import Dim, Input, ZooModel, at
from arch_ring import RING
from arch_zoo import ARCH

# Batch 1 to 8; sequences 2 to 48 (below every tiny config's 64 positions, RoBERTa's offset of 2 too).
B, S, T = Dim("B", 1, 8), Dim("S", 2, 48), Dim("T", 2, 32)
_BS = ((0, "B"), (1, "S"))
# Left-padded masks at every shape: row 0 starts with 3 zeros (generate()'s batches of unequal prompts).
_TOKENS_DYN = (Input((2, 12), "index:128", _BS), Input((2, 12), "leftpad:3", _BS))
# The example (2, 12), then a smaller batch and a longer sequence, a single short prompt, and a shape
# with sizes no power of two nor the example's.
_TOKEN_RUNS = (at(B=3, S=20), at(B=1, S=5), at(B=5, S=37))


def _tokens(base: ZooModel, *, kinds: tuple[str, str] = ("index:128", "leftpad:3")) -> ZooModel:
    """A (token ids, attention mask) model of the static rings, batch and sequence dynamic."""
    inputs = tuple(Input((2, 12), kind, _BS) for kind in kinds)
    return replace(base, inputs=inputs, dims=(B, S), runs=_TOKEN_RUNS)


def _seq2seq(base: ZooModel) -> ZooModel:
    """(source ids, target ids): batch, source and target lengths dynamic."""
    return replace(base, inputs=(Input((2, 12), "index:128", _BS), Input((2, 6), "index:128", ((0, "B"), (1, "T")))),
                   dims=(B, S, T), runs=(at(B=3, S=20, T=9), at(B=1, S=5, T=2), at(B=4, S=33, T=17)))


def _batch(base: ZooModel, runs: tuple = (at(B=1), at(B=3), at(B=5))) -> ZooModel:
    """Any model of the static rings with the first dim of every input dynamic (the batch)."""
    return replace(base, inputs=tuple(replace(spec, dynamic=((0, "B"),)) for spec in base.inputs), dims=(B,), runs=runs)


_PIXELS = "return self.m(pixel_values=x).pooler_output"
# arch_ring's _auto_head token inputs (ids 0..99, a mask its forward flips into right padding)
_HEAD_TOKENS = ("index:100", "leftpad:3")

DYNAMIC: dict[str, ZooModel] = {
    # ---- decoder LLMs: logits, left-padded masks ----
    "dyn_llama": _tokens(ARCH["llama"]),
    "dyn_qwen2": _tokens(ARCH["qwen2"]),  # generate()'s position ids from the mask's running sum
    "dyn_qwen3": _tokens(RING["qwen3"]),
    "dyn_gemma": _tokens(RING["gemma"]),
    "dyn_gemma3": _tokens(ARCH["gemma3"]),  # sliding window 8: sequences past it at 20 and 37
    "dyn_mistral": _tokens(RING["mistral"]),
    "dyn_phi3": _tokens(RING["phi3"]),
    "dyn_gpt2": _tokens(ARCH["gpt2"]),
    "dyn_gpt_neox": _tokens(RING["gpt_neox"]),
    "dyn_falcon": _tokens(RING["falcon"]),
    "dyn_opt": _tokens(RING["opt"]),
    "dyn_mixtral": _tokens(ARCH["mixtral"]),  # MoE: grouped_mm experts through the proxy executor
    "dyn_qwen2_moe": _tokens(RING["qwen2_moe"]),
    # bfloat16, as decoders are served: the MoE's experts call torch._grouped_mm there (its group
    # offsets from the token count, which is dynamic), its grouping sorts unstably.
    "dyn_llama_bf16": _tokens(ARCH["llama_bf16"]),
    "dyn_mixtral_bf16": _tokens(ARCH["mixtral_bf16"]),
    "dyn_qwen3_moe_bf16": _tokens(RING["qwen3_moe_bf16"]),
    "dyn_gpt2_bf16": _tokens(RING["gpt2_bf16"]),
    "dyn_qwen3_bf16": _tokens(RING["qwen3_bf16"]),
    "dyn_gemma2_bf16": _tokens(RING["gemma2_bf16"]),
    "dyn_phi3_bf16": _tokens(RING["phi3_bf16"]),
    "dyn_olmoe_bf16": _tokens(RING["olmoe_bf16"]),
    "dyn_gpt_oss_bf16": _tokens(RING["gpt_oss_bf16"]),
    # (source ids, source mask, target ids): the bf16 ring's T5 takes the mask too.
    "dyn_t5_bf16": replace(RING["t5_bf16"], inputs=(Input((2, 12), "index:100", _BS), Input((2, 12), "leftpad:3", _BS),
                                                    Input((2, 6), "index:100", ((0, "B"), (1, "T")))),
                           dims=(B, S, T), runs=(at(B=3, S=20, T=9), at(B=1, S=5, T=2), at(B=4, S=33, T=17))),
    # float16, as some checkpoints are served
    "dyn_qwen3_fp16": _tokens(RING["qwen3_fp16"]),
    # ---- encoders: last hidden state ----
    "dyn_bert": _tokens(ARCH["bert"]),
    "dyn_roberta": _tokens(RING["roberta"]),
    "dyn_distilbert": _tokens(RING["distilbert"]),
    "dyn_deberta_v2": _tokens(RING["deberta_v2"]),  # relative-position buckets over a dynamic length
    "dyn_electra": _tokens(RING["electra"]),
    # ---- encoder-decoders ----
    "dyn_t5": _seq2seq(RING["t5"]),
    "dyn_bart": _seq2seq(RING["bart"]),
    # Whisper's encoder takes exactly 2 * max_source_positions frames: batch and decoder length dynamic.
    "dyn_whisper": replace(RING["whisper"], inputs=(Input((2, 16, 32), dynamic=((0, "B"),)),
                                                    Input((2, 6), "index:128", ((0, "B"), (1, "T")))),
                           dims=(B, T), runs=(at(B=3, T=9), at(B=1, T=2), at(B=4, T=29))),
    # ---- speech: raw audio of any length (conv feature extractor strides 5 and 2) ----
    "dyn_wav2vec2": replace(RING["wav2vec2"], inputs=(Input((2, 400), dynamic=((0, "B"), (1, "L"))),),
                            dims=(B, Dim("L", 400, 4000)), runs=(at(B=1, L=1000), at(B=3, L=2213), at(B=2, L=401))),
    # ---- vision ----
    "dyn_vit": _batch(ARCH["vit"]),
    # ViT at any multiple of its 8-pixel patch, square: the position embeddings interpolated (bicubic) to
    # the grid. Exported at 40 px, not the config's 32: exported at 32, where ViT skips the interpolation
    # (its grid is the table's), the package is wrong at every other size (0.24 to 0.50 off eager
    # under torch's own loader as under the runtime), though export kept the size dynamic. Height and width cannot be two dims: ViT's `height == width` test on the square example
    # makes export unify them (one symbol kept, no error), and a non-square image is then refused by
    # the model's check (unchecked: 37 patches for 48 x 24 px, where eager has 19). Dim names are
    # sympy names inside export: "Q" is sympy's Q, and a derived "8 * Q" fails ("unsupported operand
    # type(s) for *: 'AssumptionKeys' and 'int'").
    "dyn_vit_interp": ZooModel(ARCH["vit"].init, "return self.m(pixel_values=x, interpolate_pos_encoding=True)"
                               ".last_hidden_state",
                               (Input((2, 3, 40, 40), dynamic=((0, "B"), (2, "8 * P"), (3, "8 * P"))),), 1e-4,
                               dims=(B, Dim("P", 2, 8)), runs=(at(B=1, P=2), at(B=3, P=4), at(B=2, P=7))),
    "dyn_convnext": _batch(ARCH["convnext"]),
    # ResNet over any image size (strided convolutions and pools floor odd sizes; global average pool).
    "dyn_resnet": replace(ARCH["resnet"], inputs=(Input((2, 3, 32, 32), dynamic=((0, "B"), (2, "H"), (3, "W"))),),
                          dims=(B, Dim("H", 32, 128), Dim("W", 32, 128)),
                          runs=(at(B=1, H=64, W=48), at(B=3, H=37, W=101), at(B=2, H=32, W=32 + 96))),
    "dyn_swin": _batch(RING["swin"]),
    # ---- task heads (arch_ring's head_*, 2026-12-07): a classifier pools each row's last real token at
    # every shape (its rows right-padded: the head's argmax over the mask), span logits, a seq2seq LM,
    # CTC over any audio length, detection and segmentation heads over a dynamic batch ----
    "dyn_head_llama_cls": _tokens(RING["head_llama_cls"], kinds=_HEAD_TOKENS),
    "dyn_head_gpt2_cls": _tokens(RING["head_gpt2_cls"], kinds=_HEAD_TOKENS),
    "dyn_head_bloom_cls": _tokens(RING["head_bloom_cls"], kinds=_HEAD_TOKENS),  # ALiBi
    "dyn_head_bert_cls": _tokens(RING["head_bert_cls"], kinds=_HEAD_TOKENS),
    "dyn_head_llama_qa": _tokens(RING["head_llama_qa"], kinds=_HEAD_TOKENS),
    "dyn_head_t5_s2s": replace(RING["head_t5_s2s"], inputs=(Input((2, 12), "index:100", _BS),
                                                            Input((2, 12), "leftpad:3", _BS),
                                                            Input((2, 6), "index:100", ((0, "B"), (1, "T")))),
                               dims=(B, S, T), runs=(at(B=3, S=20, T=9), at(B=1, S=5, T=2), at(B=4, S=33, T=17))),
    # (its seven-layer feature extractor needs 720 samples at least: export's own bound)
    "dyn_head_wav2vec2_ctc": replace(RING["head_wav2vec2_ctc"], inputs=(Input((2, 1600), dynamic=((0, "B"), (1, "N"))),),
                                     dims=(B, Dim("N", 720, 4000)),
                                     runs=(at(B=1, N=1000), at(B=3, N=2213), at(B=2, N=721))),
    "dyn_head_detr_det": _batch(RING["head_detr_det"]),
    "dyn_head_segformer_seg": _batch(RING["head_segformer_seg"]),
    # ---- plain torch ----
    # A 2-layer LSTM over a dynamic batch. Its sequence length cannot be dynamic: torch 2.13's export
    # keeps aten.lstm whole but specializes the length to the example's ("Constraints violated (S)!
    # ... your code specialized it to be a constant (10)"; Dim.AUTO keeps it static too).
    "dyn_lstm": _batch(ARCH["lstm"], runs=(at(B=1), at(B=3), at(B=8))),
    # 1-d convolutions (padded, strided, dilated) over a dynamic length, reduced over it. (Not
    # adaptive_avg_pool1d: inductor sizes its window from the example length, and shorter inputs give
    # garbage under torch's own loader too; docs/aoti.md, "Dynamic shapes".)
    "dyn_conv1d": ZooModel(
        "self.a = torch.nn.Conv1d(8, 16, 5, padding=2)\nself.b = torch.nn.Conv1d(16, 16, 3, stride=2)\n"
        "self.c = torch.nn.Conv1d(16, 8, 3, dilation=2, padding=2)",
        "h = self.b(torch.relu(self.a(x)))\ny = self.c(torch.nn.functional.gelu(h))\n"
        "return y, y.mean(-1), y.amax(-1)",
        (Input((2, 8, 40), dynamic=((0, "B"), (2, "L"))),), 1e-5,
        dims=(B, Dim("L", 8, 512)), runs=(at(B=1, L=8), at(B=3, L=121), at(B=2, L=512))),
    # Attention of a few queries over a dynamic key/value length (a decode step over a KV cache):
    # unmasked, a boolean key mask, grouped heads, and nn.MultiheadAttention.
    "dyn_kv_attention": ZooModel(
        "self.mha = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()",
        "F = torch.nn.functional\n"
        "keep = (y[:, :, :, :1] > -1.0).transpose(-1, -2)\n"
        "a = F.scaled_dot_product_attention(x, y, z)\n"
        "b = F.scaled_dot_product_attention(x, y, z, attn_mask=keep)\n"
        "c = F.scaled_dot_product_attention(x, y[:, :2], z[:, :2], enable_gqa=True)\n"
        "q, kv = x.transpose(1, 2).flatten(2), y.transpose(1, 2).flatten(2)\n"
        "d, w = self.mha(q, kv, kv)\n"
        "return a, b, c, d, w",
        (Input((2, 4, 3, 16), dynamic=((0, "B"),)), Input((2, 4, 24, 16), dynamic=((0, "B"), (2, "K"))),
         Input((2, 4, 24, 16), dynamic=((0, "B"), (2, "K")))), 1e-5,
        dims=(B, Dim("K", 1, 256)), runs=(at(B=1, K=1), at(B=3, K=97), at(B=2, K=256))),
}

# The slow-marked CI subset (tests/integration/test_dynamic_ring.py): plain-torch models, seconds to
# compile each on 2 cores (the transformers families stay in scripts/zoo_cpu.py --dynamic).
CI = ("dyn_lstm", "dyn_kv_attention")
