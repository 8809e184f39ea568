"""transformers' own architectures from small random configs (no download), compiled by stock
AOTInductor for the runtime (issue 22's real-architecture proof).

    python tests/hf_models.py OUT_DIR [--device cpu|cuda] [--dtype float32|bfloat16|float16] [NAME...]

For each NAME (default: all) writes OUT_DIR/<name>-<device>-<dtype>/{model.pt2, in<i>.npy, out0.npy,
meta.json}: the model is wrapped so it takes int64 token ids (or float32 pixels) and returns float32
(logits or the last hidden state), since .npy has no bfloat16; eager's output on the same inputs is
out0.npy, and meta.json records the aoti_torch_* shims the model .so imports. A directory whose
meta.json matches (torch, transformers, device, dtype, this file's model table) is not compiled
again. Each model compiles in a child process of its own (a failure stays one model's failure).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import aoti_zoo  # tests/ is on the path: this file runs as a script there or is imported beside it

SEQ = 12
# name: (config class, model class, config kwargs, input kind). Small but real: GQA where the family
# uses it, more than one layer, vocabularies that make topk/sampling shapes plausible.
MODELS: dict[str, tuple[str, str, dict, str]] = {
    "llama": ("LlamaConfig", "LlamaForCausalLM",
              dict(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                   num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=128), "tokens"),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM",
              dict(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                   num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=128), "tokens"),
    "gemma3": ("Gemma3TextConfig", "Gemma3ForCausalLM",
               dict(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=1, head_dim=32, max_position_embeddings=128,
                    sliding_window=8), "tokens"),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM",
                dict(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                     num_attention_heads=8, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2,
                     max_position_embeddings=128), "tokens"),
    "bert": ("BertConfig", "BertModel",
             dict(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                  num_attention_heads=4, max_position_embeddings=64), "tokens"),
    "vit": ("ViTConfig", "ViTModel",
            dict(image_size=32, patch_size=8, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                 num_attention_heads=4), "pixels"),
}
# Benchmark shapes (benchmarks/llm_decode_cuda.py), not in the test set: a Llama-7B-like layer
# (hidden 2048, 32 heads over 8 key/value heads, MLP 5632, 32k vocabulary), two layers, one
# sequence of 8 tokens ("tokens1": batch 1).
BENCHMARK_MODELS: dict[str, tuple[str, str, dict, str]] = {
    "llama_step": ("LlamaConfig", "LlamaForCausalLM",
                   dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=2,
                        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=256), "tokens1"),
}
ALL_MODELS = {**MODELS, **BENCHMARK_MODELS}


def table_key() -> str:
    return hashlib.sha256(repr(sorted(ALL_MODELS.items())).encode()).hexdigest()[:16]


def directory_of(out: Path, name: str, device: str, dtype: str) -> Path:
    return out / f"{name}-{device}-{dtype}"


def build(name: str, device: str, dtype_name: str):
    """(module, example input): the model with its seeded random weights, wrapped to return float32."""
    import torch
    import transformers

    config_cls, model_cls, kwargs, kind = ALL_MODELS[name]
    torch.manual_seed(0)
    config = getattr(transformers, config_cls)(**kwargs)
    dtype = getattr(torch, dtype_name)
    inner = getattr(transformers, model_cls)(config).to(device=device, dtype=dtype).eval()
    causal = "Causal" in model_cls

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if kind == "pixels":
                return self.inner(pixel_values=x.to(dtype)).last_hidden_state.float()
            if causal:
                return self.inner(input_ids=x, use_cache=False).logits.float()
            return self.inner(input_ids=x).last_hidden_state.float()

    g = torch.Generator().manual_seed(1)
    if kind == "pixels":
        x = torch.randn(2, 3, 32, 32, generator=g)
    else:
        x = torch.randint(0, kwargs["vocab_size"], (1 if kind == "tokens1" else 2, SEQ if kind == "tokens" else 8),
                          generator=g)
    return Wrapped().eval(), x.to(device)


def compile_one(out: Path, name: str, device: str, dtype_name: str) -> Path:
    import numpy as np
    import torch
    import transformers

    directory = directory_of(out, name, device, dtype_name)
    key = {"torch": torch.__version__, "transformers": transformers.__version__, "table": table_key()}
    stamp = directory / "meta.json"
    if stamp.is_file() and {k: json.loads(stamp.read_text()).get(k) for k in key} == key:
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    model, x = build(name, device, dtype_name)
    with torch.no_grad():
        expected = model(x)
    exported = torch.export.export(model, (x,))
    pt2 = directory / "model.pt2"
    torch._inductor.aoti_compile_and_package(exported, package_path=str(pt2),
                                             inductor_configs={"aot_inductor.link_libtorch": False})
    np.save(directory / "in0.npy", x.cpu().numpy())
    np.save(directory / "out0.npy", expected.cpu().numpy())
    stamp.write_text(json.dumps({**key, "imports": aoti_zoo.shim_imports(pt2), "device": device, "dtype": dtype_name}))
    return directory


def ensure_compiled(out: Path, names: list[str], device: str, dtype: str, timeout: int = 900) -> dict[str, Path | str]:
    """{name: its directory, or why it did not compile}; each compile in a child process of its own,
    all at once (compiles are mostly single-threaded Python; a GPU machine has the cores)."""
    children = {name: subprocess.Popen([sys.executable, __file__, str(out), "--device", device, "--dtype", dtype, name],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for name in names}
    result: dict[str, Path | str] = {}
    for name, child in children.items():
        try:
            _, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            result[name] = f"compile timed out after {timeout} s"
            continue
        lines = err.strip().splitlines() or ["no output"]
        # The reason: a compiler's "error:" line, else the exception's own last line; the whole
        # stderr is kept beside the model.
        directory = directory_of(out, name, device, dtype)
        if child.returncode != 0:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "compile-error.log").write_text(err)
        reason = next((line for line in lines if "error:" in line), lines[-1])
        result[name] = directory if child.returncode == 0 else reason[-600:]
    return result


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Compile tests/hf_models.py's models into OUT/<name>-<device>-<dtype>.")
    parser.add_argument("out", type=Path)
    parser.add_argument("names", nargs="*", help=f"default: all ({', '.join(MODELS)})")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_intermixed_args(argv)  # ensure_compiled passes OUT, the options, then a name
    for name in args.names or list(MODELS):
        print(compile_one(args.out, name, args.device, args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
