"""Any transformers family as a tiny model, without writing its config by hand: the family's default
config shrunk generically (sizes, layers, heads, experts, image size; nested sub-configs too) and the
model's inputs chosen by its ``main_input_name``. scripts/family_sweep.py screens every registered
family with it; tests/arch_ring.py's ``_auto`` entries compile and compare the ones it picked.

A shrunk config keeps the family's own structure (its attention, norms, routing, layer kinds): only
sizes change, so the ops inductor emits are the family's. Random weights, seeded.
"""

from __future__ import annotations

from typing import Any

# Upper bounds: a config value larger than this is lowered to it.
SIZES = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 16, "d_model": 64, "encoder_layers": 2, "decoder_layers": 2,
         "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 128,
         "decoder_ffn_dim": 128, "num_layers": 2, "n_layer": 2, "n_head": 4, "n_embd": 64, "d_ff": 128,
         "ffn_dim": 128, "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 64,
         "num_decoder_layers": 2, "encoder_hidden_size": 64, "projection_dim": 32, "embed_dim": 64,
         "kv_lora_rank": 16, "q_lora_rank": 32, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8,
         "v_head_dim": 16, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1, "image_size": 64,
         "max_position_embeddings": 512}
# Per-family constructor arguments of text families (ring-text; joined into BUILD below) where the
# generic shrink cannot reach a consistent config (policy as data): sizes the family derives from
# others, a default it leaves None, a section list that must sum to the rotary width. Passed to the
# config's constructor, so derived fields follow; then shrink, and a value that is no dict is set again
# (shrink's bounds would undo it).
_ROPE = {"rope_type": "default", "rope_theta": 10000.0}
TEXT_BUILD: dict[str, dict[str, Any]] = {
    # m-rope sections must sum to head_dim * partial_rotary_factor / 2 (16 / 2; glm4v_moe: 16 / 2 / 2)
    "qwen2_vl_text": {"rope_parameters": {**_ROPE, "mrope_section": [2, 3, 3]}},
    "qwen2_5_vl_text": {"rope_parameters": {**_ROPE, "mrope_section": [2, 3, 3]}},
    "glm4v_text": {"rope_parameters": {**_ROPE, "mrope_section": [2, 3, 3]}},
    "glm_ocr_text": {"rope_parameters": {**_ROPE, "mrope_section": [2, 3, 3]}},
    "glm_image_text": {"rope_parameters": {**_ROPE, "mrope_section": [2, 3, 3]}},
    "glm4v_moe_text": {"rope_parameters": {**_ROPE, "partial_rotary_factor": 0.5, "mrope_section": [1, 1, 2]}},
    # mamba head sizes derived from (or sized for) the full hidden size; one mamba and one hybrid layer
    "zamba2": {"hidden_size": 64, "num_hidden_layers": 2, "layers_block_type": ["linear_attention", "hybrid"],
               "mamba_d_state": 16, "adapter_rank": 8},
    "granitemoehybrid": {"hidden_size": 64, "num_hidden_layers": 2, "mamba_n_heads": 8, "mamba_d_head": 16, "mamba_d_state": 16,
                         "layer_types": ["linear_attention", "full_attention"]},
    # the decoder's cross-attention width is copied from the encoder before shrinking
    "t5gemma": {"encoder": {"hidden_size": 64}, "decoder": {"hidden_size": 64}},
    "esm": {"vocab_size": 128, "pad_token_id": 1},  # no default vocabulary (the ring's ids go to 100)
    "lfm2_moe": {"num_hidden_layers": 2, "layer_types": ["conv", "full_attention"], "num_dense_layers": 1},  # no default layer kinds
    # DeepSeek sparse attention: the latent key/value has a head per query head; a small indexer whose
    # top-k is below the sequence, so the sparse mask selects
    "deepseek_v32": {"num_attention_heads": 4, "num_key_value_heads": 4, "index_n_heads": 4, "index_head_dim": 16,
                     "index_topk": 8},
    "glm_moe_dsa": {"num_attention_heads": 4, "num_key_value_heads": 4, "index_n_heads": 4, "index_head_dim": 16,
                    "index_topk": 8},
    # per-layer inputs (a 262k-row table per layer), kv sharing across a 4-layer pattern, sparse layers first
    "gemma3n_text": {"num_hidden_layers": 4, "layer_types": ["sliding_attention", "full_attention"] * 2,
                     "num_kv_shared_layers": 2, "activation_sparsity_pattern": [0.95, 0.0, 0.0, 0.0],
                     "vocab_size_per_layer_input": 128, "hidden_size_per_layer_input": 16, "laurel_rank": 8},
    # zamba ties the shared transformer of its hybrid layers: two of them
    "zamba": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4,
              "layers_block_type": ["linear_attention", "hybrid", "hybrid"], "mamba_dt_rank": 8},
    "kimi_linear": {"num_hidden_layers": 2, "num_experts_per_token": 2, "linear_head_dim": 16, "linear_num_heads": 4,
                    "num_attention_heads": 4, "num_key_value_heads": 4,
                    "layer_types": ["linear_attention", "full_attention"], "mlp_layer_types": ["dense", "sparse"]},
    "xlstm": {"hidden_size": 64, "embedding_dim": 64, "num_blocks": 2, "num_hidden_layers": 2, "num_heads": 4,
              "chunk_size": 4},
    "longcat_flash": {"moe_topk": 2, "zero_expert_num": 2, "expert_ffn_hidden_size": 32, "ffn_hidden_size": 128,
                      "num_attention_heads": 4, "num_key_value_heads": 4},
    "dots1": {"n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2},  # no default experts
}
TOKENS, TOKEN_LIMIT, AUDIO_SAMPLES = (2, 12), 100, 1600


def shrink(config: Any, depth: int = 0) -> Any:
    """``config`` with every size above SIZES lowered, per-stage depths set to 1 and mixed layer kinds
    kept one each (sliding/full, linear/full, mamba/attention), recursively into sub-configs."""
    before = dict(vars(config))
    for key, value in list(vars(config).items()):
        if key.startswith("_"):
            continue
        if hasattr(value, "to_dict") and depth < 3 and not isinstance(value, type):
            shrink(value, depth + 1)
        elif key in SIZES and isinstance(value, int) and not isinstance(value, bool) and value > SIZES[key]:
            setattr(config, key, SIZES[key])
        elif key == "depths" and isinstance(value, (list, tuple)):
            setattr(config, key, type(value)(1 for _ in value))
        elif key == "layer_types" and isinstance(value, (list, tuple)):
            n = getattr(config, "num_hidden_layers", None)
            if isinstance(n, int):
                kinds = list(dict.fromkeys(value))
                setattr(config, key, type(value)((kinds * n)[:max(n, len(kinds))]))
                if len(kinds) > n:
                    config.num_hidden_layers = len(kinds)
    # A head_dim left None (the family derives it as hidden / heads, some with getattr's default,
    # which None defeats): the derived value, set.
    heads, hidden = getattr(config, "num_attention_heads", None), getattr(config, "hidden_size", None)
    # (Read from the instance dict: a per-layer config, Gemma4's, refuses the global attribute read.)
    if "head_dim" in vars(config) and vars(config)["head_dim"] is None and isinstance(heads, int) and isinstance(hidden, int):
        config.head_dim = hidden // heads
    # Fields the family derived from shrunk ones (multi-head latent attention: head_dim is the rotary
    # width, qk_head_dim nope + rope): derived again from the shrunk values.
    rope, nope = getattr(config, "qk_rope_head_dim", None), getattr(config, "qk_nope_head_dim", None)
    if isinstance(rope, int) and isinstance(nope, int):
        if before.get("head_dim") == before.get("qk_rope_head_dim"):
            config.head_dim = rope
        if "qk_head_dim" in before and before["qk_head_dim"] == before["qk_rope_head_dim"] + before["qk_nope_head_dim"]:
            config.qk_head_dim = rope + nope
    # Latent attention expands its key/value latent to one head per query head: a family whose default
    # has as many key/value heads as query heads keeps that (else attention repeats the keys twice over).
    if "kv_lora_rank" in before and before.get("num_key_value_heads") == before.get("num_attention_heads"):
        config.num_key_value_heads = heads
    if "num_key_value_heads" in vars(config) and config.num_key_value_heads is None and isinstance(heads, int):
        config.num_key_value_heads = heads  # None: one key/value head per query head
    return config


# Per-family exceptions to the generic shrink (ring-vision). BUILD: keyword arguments for the family's
# config constructor (a backbone config as a dict, timm off: no timm here). OVERRIDES: values set after
# shrink, a dotted key reaching into a sub-config ("text_config.projection_size").
_RESNET = {"model_type": "resnet", "embedding_size": 16, "hidden_sizes": [16, 32, 64, 64], "depths": [1, 1, 1, 1],
           "out_features": ["stage1", "stage2", "stage3", "stage4"]}
_NO_TIMM = {"use_timm_backbone": False, "use_pretrained_backbone": False, "backbone": None, "backbone_config": _RESNET}
# Forecasters: 8 context steps + 3 lags (11 past values), 4 predicted, one time feature.
_FORECAST = {"prediction_length": 4, "context_length": 8, "lags_sequence": [1, 2, 3], "num_time_features": 1}
_DINO = {"model_type": "dinov2", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 32,
         "patch_size": 8, "intermediate_size": 64}
BUILD: dict[str, dict[str, Any]] = {
    "detr": _NO_TIMM, "conditional_detr": _NO_TIMM, "deformable_detr": _NO_TIMM, "table-transformer": _NO_TIMM,
    "dab-detr": _NO_TIMM, "time_series_transformer": _FORECAST, "informer": _FORECAST,
    "autoformer": {**_FORECAST, "label_length": 4},
    # 32-pixel patches through 2-layer DINOv2 encoders (128-pixel images: the 0.25 scale is one patch)
    "depth_pro": {"image_model_config": _DINO, "patch_model_config": _DINO, "fov_model_config": _DINO, "patch_size": 32,
                  "intermediate_hook_ids": [1, 0], "intermediate_feature_dims": [32, 32],
                  "scaled_images_feature_dims": [64, 64, 32], "fusion_hidden_size": 32},
}
BUILD.update(TEXT_BUILD)
# A backbone config read at four stages (the neck of DPT-style depth heads takes four feature maps).
_STAGES4 = {"out_features": ["stage1", "stage2", "stage3", "stage4"], "out_indices": [1, 2, 3, 4]}
OVERRIDES: dict[str, dict[str, Any]] = {
    "siglip": {"text_config.projection_size": 64},
    "detr": {"num_queries": 20}, "conditional_detr": {"num_queries": 20}, "deformable_detr": {"num_queries": 20},
    "table-transformer": {"num_queries": 20}, "dab-detr": {"num_queries": 20},
    "siglip2": {"text_config.projection_size": 64},
    "align": {"projection_dim": 640, "vision_config.num_block_repeats": [1, 1, 1, 1, 1, 1, 1]},
    "donut-swin": {"depths": [1, 1], "num_heads": [2, 4], "window_size": 4},
    "mask2former": {"backbone_config.num_heads": [2, 4, 8, 8], "backbone_config.window_size": 4, "feature_size": 64,
                    "mask_feature_size": 64, "hidden_dim": 64, "encoder_feedforward_dim": 128, "dim_feedforward": 128,
                    "num_queries": 20},
    "sam": {"vision_config.output_channels": 64, "vision_config.window_size": 4, "vision_config.global_attn_indexes": [1],
            "vision_config.mlp_dim": 128, "vision_config.num_pos_feats": 32, "prompt_encoder_config.image_embedding_size": 4,
            "mask_decoder_config.mlp_dim": 128, "mask_decoder_config.iou_head_hidden_dim": 64,
            # at 0.02 the masks are ~4e-4 (nothing compared)
            "initializer_range": 0.2, "vision_config.initializer_range": 0.2,
            "prompt_encoder_config.initializer_range": 0.2, "mask_decoder_config.initializer_range": 0.2},
    "layoutlmv3": {"coordinate_size": 12, "shape_size": 8, "input_size": 64},
    "speecht5": {"conv_dim": (32,) * 7, "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4,
                 "speech_decoder_prenet_units": 64, "speaker_embedding_dim": 64, "speech_decoder_postnet_units": 64,
                 "num_mel_bins": 16},
    "wav2vec2-bert": {"output_hidden_size": 64, "conv_depthwise_kernel_size": 7},
    "timesfm": {"context_length": 64, "horizon_length": 32},
    "clap": {"audio_config.patch_embeds_hidden_size": 16, "audio_config.hidden_size": 128,
             "audio_config.num_attention_heads": [2, 2, 4, 8]},
    "d_fine": {"num_queries": 20}, "rt_detr_v2": {"num_queries": 20},  # top-k of 300 over 84 anchors otherwise
    "seggpt": {"image_size": [64, 32], "mlp_dim": 128, "intermediate_hidden_state_indices": [0, 1]},
    # 4 query tokens placed at image-token id 99; OPT's embedding projection at the shrunk width
    "blip-2": {"image_token_index": 99, "num_query_tokens": 4, "text_config.word_embed_proj_dim": 64,
               "text_config.vocab_size": 128},
    "kosmos-2": {"latent_query_num": 4},
    # ProbSparse attention samples keys with torch.randint (outputs differ run to run) and the distilled
    # encoder does not export (a mask of the undistilled length): full attention, no distilling
    "informer": {"attention_type": "full", "distil": False},
    "lxmert": {"visual_feat_dim": 64, "l_layers": 1, "x_layers": 1, "r_layers": 1},
    # a 64-pixel Hiera: global attention on a stage's second block (a stage's first one pools its window)
    "sam2_vision_model": {"backbone_config.image_size": [64, 64], "backbone_config.embed_dim_per_stage": [16, 32, 64, 128],
                          "backbone_config.blocks_per_stage": [1, 2, 1, 1], "backbone_config.window_size_per_stage": [4, 4, 4, 2],
                          "backbone_config.global_attention_blocks": [2], "backbone_config.hidden_size": 16,
                          "backbone_config.window_positional_embedding_background_size": [4, 4],
                          "backbone_channel_list": [128, 64, 32, 16], "backbone_feature_sizes": [[16, 16], [8, 8], [4, 4]],
                          "fpn_hidden_size": 32},
    "oneformer": {"backbone_config.num_heads": [2, 4, 8, 8], "backbone_config.window_size": 4, "num_queries": 20,
                  "conv_dim": 64, "mask_dim": 64, "hidden_dim": 64, "encoder_feedforward_dim": 128, "dim_feedforward": 128,
                  "task_seq_len": 12},
    "univnet": {"num_mel_bins": 64, "initializer_range": 0.05},  # at 0.01 the waveform is ~6e-3, at 0.1 tanh saturates
    # deep CNNs at 0.02 end near 0 (hgnet_v2 3e-11, mobilenet_v1 8e-28: nothing compared); the smallest
    # ranges whose outputs are of order 1 (hgnet_v2: 0.07 gives 0.14, 0.1 gives 2e3; mobilenet_v1's relu6 saturates at 0.5)
    "hgnet_v2": {"initializer_range": 0.08}, "mobilenet_v1": {"initializer_range": 0.2},
    # their default is 1e-10: outputs ~4e-20
    "sam_vision_model": {"initializer_range": 0.2}, "sam_hq_vision_model": {"initializer_range": 0.2},
    # Task heads the shrink left inconsistent (fourth round). None of these changes a model the ring already
    # ran from these families (their outputs compared equal before and after): a pooler sized for the
    # full width (DeBERTa-v2's classifier); LeViT's per-stage lists (as the ring's own "levit");
    # Hiera's list image size and mask units; DPT-style necks that read four hidden states of two
    # layers; FocalNet's backbone widths (a tuple it concatenates to a list; embed_dim * 2^i, the
    # last kept); ViTPose's 256 x 192 image and a stage past the shrunk depth; Swin's heads (3 per
    # 64 channels) and windows (2 divides every stage's 16, 8, 4, 2), num_layers (the shrink's 2 made
    # the MIM decoder's width that of two stages)
    "deberta-v2": {"pooler_hidden_size": 64},
    "levit": {"hidden_sizes": [32, 48], "num_attention_heads": [2, 3], "depths": [1, 1], "key_dim": [8, 8],
              "mlp_ratio": [2, 2], "attention_ratio": [2, 2], "down_ops": [["Subsample", 8, 4, 4, 2, 2]],
              "initializer_range": 0.2},
    "hiera": {"image_size": [64, 64], "masked_unit_size": [4, 4]},
    "dpt": {"num_hidden_layers": 4, "backbone_out_indices": [0, 1, 2, 3], "neck_hidden_sizes": [16, 32, 64, 64],
            "fusion_hidden_size": 32, "head_hidden_size": 16, "initializer_range": 0.1},  # 0.02: depth ~7e-8
    "depth_anything": {"backbone_config.num_hidden_layers": 4, **{f"backbone_config.{k}": v for k, v in _STAGES4.items()},
                       "neck_hidden_sizes": [16, 32, 64, 64], "fusion_hidden_size": 32, "head_hidden_size": 16,
                       "reassemble_hidden_size": 64, "initializer_range": 0.12},  # 0.02: ~6e-7; 0.1: 0.04
    "zoedepth": {"backbone_config.num_hidden_layers": 4, **{f"backbone_config.{k}": v for k, v in _STAGES4.items()},
                 "neck_hidden_sizes": [16, 32, 64, 64], "fusion_hidden_size": 32, "bottleneck_features": 32,
                 # 0.02: ln 2 at every pixel, whatever the image; 0.12: 0.63 to 1.03; from 0.13 the bin
                 # attractors amplify rounding (bfloat16 eager 0.7 from float32 eager, torch's loader 1e-4)
                 "initializer_range": 0.12},
    "focalnet": {"hidden_sizes": [128, 256, 512, 512]},
    "vitpose": {"backbone_config.image_size": [64, 64], "backbone_config.out_features": ["stage2"],
                "backbone_config.out_indices": [2]},
    "swin": {"num_heads": [2, 4, 8, 16], "window_size": 2, "num_layers": 4},
    "swinv2": {"num_heads": [2, 4, 8, 16], "window_size": 4},
}


def tiny_config(model_type: str) -> Any:
    import copy

    from transformers import AutoConfig

    build = BUILD.get(model_type, {})
    config = shrink(AutoConfig.for_model(model_type, **copy.deepcopy(build)))
    for key, value in TEXT_BUILD.get(model_type, {}).items():  # wins over shrink's bounds (sub-configs stay objects)
        if not isinstance(value, dict):
            setattr(config, key, copy.deepcopy(value))
    for key, value in OVERRIDES.get(model_type, {}).items():
        *path, last = key.split(".")
        target = config
        for part in path:
            target = getattr(target, part)
        setattr(target, last, value)
    return config


def tiny_model(model_type: str, head: str = "AutoModel", **config_attributes: Any) -> Any:
    """The family's model from its shrunk config with ``config_attributes`` set on it, seeded, in eval
    mode: the base model, or with ``head`` a task model (an auto class of transformers'
    "AutoModelFor...", or a model class, where the auto class maps several). A head that picks each row's last real token needs a padding id: the
    family's own, else 0 (ids start at 3, so no input token is padding)."""
    import torch
    import transformers

    config = tiny_config(model_type)
    for name, value in config_attributes.items():
        setattr(config, name, value)
    if head != "AutoModel" and getattr(config, "pad_token_id", None) is None:
        config.pad_token_id = 0
    torch.manual_seed(0)
    cls = getattr(transformers, head)
    return (cls.from_config(config) if head.startswith("Auto") else cls(config)).eval()


def vocab_bound(config: Any) -> int:
    """An exclusive bound for token ids every family accepts (its vocabulary, at most TOKEN_LIMIT)."""
    for part in (config, getattr(config, "text_config", None), getattr(config, "decoder", None)):
        size = getattr(part, "vocab_size", None) if part is not None else None
        if isinstance(size, int) and size > 8:
            return min(size, TOKEN_LIMIT)
    return TOKEN_LIMIT


def input_kind(model: Any) -> str:
    """'tokens', 'pixels', 'audio' or 'features' (the model's main input), or '' for none of these."""
    return {"input_ids": "tokens", "pixel_values": "pixels", "input_values": "audio",
            "input_features": "features"}.get(getattr(model, "main_input_name", "input_ids"), "")


def tensors(output: Any) -> tuple:
    """Every tensor of a model output (a ModelOutput or a tuple), in order: what a ring entry returns."""
    import torch

    values = output.values() if hasattr(output, "values") else output if isinstance(output, tuple) else [output]
    flat = []
    for value in values:  # a backbone's feature maps are a tuple of tensors: one level down
        flat.extend(value if isinstance(value, (tuple, list)) else [value])
    return tuple(v for v in flat if isinstance(v, torch.Tensor))


def call(model: Any, **inputs: Any) -> tuple:
    """``model(**inputs)`` with the inputs its forward does not take left out and the cache off (a
    cache object is no tensor output), returning tensors(output)."""
    import inspect

    params = inspect.signature(model.forward).parameters
    kwargs = {k: v for k, v in inputs.items() if k in params}
    if "use_cache" in params:
        kwargs["use_cache"] = False
    return tensors(model(**kwargs))
