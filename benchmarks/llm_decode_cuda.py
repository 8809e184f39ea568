"""A bfloat16 decoder step of a Llama-shaped model on the H200: shimgen's runtime vs eager torch,
same process, same inputs.

    python benchmarks/llm_decode_cuda.py [--runtime LIB] [--calls 100] [--repeats 9] [--work DIR]

The model is tests/hf_models.py's ``llama_step`` (transformers' LlamaForCausalLM from a random
config: hidden 2048, 32 heads over 8 key/value heads, MLP 5632, 32k vocabulary, 2 layers; one
sequence of 8 tokens, use_cache=False, logits as float32), compiled by the installed torch with
link_libtorch=False and rewritten by `shimgen prefix-imports`. Rows, interleaved as in
benchmarks/model_latency.py, each call followed by a sync of the one stream both run on:
  shimgen Model.run_handles   token ids on the device, made once; the output handle freed each call
  eager torch (no_grad)       the same module, same weights (seeded), same ids
Goal: shimgen / eager <= 0.5 per call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runtime", type=Path, help="a CUDA build of libshimgen_runtime.so (default: build one)")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--work", type=Path, default=Path("/tmp/shimgen-llm-bench"))
    args = parser.parse_args(argv)

    import numpy as np
    import torch

    if not torch.cuda.is_available():
        print("llm_decode_cuda.py: this torch sees no CUDA device; run it on the GPU machine", file=sys.stderr)
        return 2
    import aoti_zoo
    import hf_models
    from model_latency import build_runtime, interleaved
    from torch_handles import copy_into, wrap

    from shimgen.aoti.prefix_imports import prefix_imports_with_config
    from shimgen.aoti.runner import Model, Runtime
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    args.work.mkdir(parents=True, exist_ok=True)
    name = "llama_step"
    compiled = hf_models.ensure_compiled(aoti_zoo.cache_root() / "hf-models", [name], "cuda", "bfloat16")[name]
    if not isinstance(compiled, Path):
        print(f"llm_decode_cuda.py: {name} did not compile: {compiled}", file=sys.stderr)
        return 1
    config = load_config(default_config())
    prefixed = args.work / f"{name}.prefixed.pt2"
    prefix_imports_with_config(compiled / "model.pt2", prefixed, config)
    runtime_path = args.runtime or build_runtime(args.work, "cuda")
    module, ids = hf_models.build(name, "cuda", "bfloat16")
    expected = np.load(compiled / "out0.npy")
    rt = Runtime(runtime_path, config.prefix)
    stream = torch.cuda.Stream()
    raw = stream.cuda_stream
    with Model(rt, prefixed, device="cuda:0") as model:
        # The token ids as torch made them on the device, wrapped without a copy.
        torch.cuda.synchronize()
        handle = wrap(rt, ids)
        with rt.caller_stream(raw):
            (first,) = model.run_handles([handle], raw)
        logits = torch.empty(expected.shape, dtype=torch.float32, device="cuda")
        copy_into(rt, logits, first)
        rt.delete(first)
        error = float((logits.cpu().double() - torch.from_numpy(expected).double()).abs().max())
        limit = 0.04 * max(1.0, float(np.abs(expected).max()))
        assert error <= limit, f"shimgen's logits differ from eager's by {error:.3g} (tolerance {limit:.3g})"

        def shimgen_call() -> None:
            for out in model.run_handles([handle], raw):
                rt.delete(out)

        with torch.no_grad(), torch.cuda.stream(stream), rt.caller_stream(raw):
            rows = {"shimgen Model.run_handles": shimgen_call, "eager torch (no_grad)": lambda: module(ids)}
            samples = interleaved(rows, stream.synchronize, args.calls, args.repeats)
        rt.delete(handle)
    print(f"{name}: Llama shape (hidden 2048, 32/8 heads, MLP 5632, vocab 32000, 2 layers), bfloat16, ids [1, 8], "
          f"on {torch.cuda.get_device_name(0)}; torch {torch.__version__}; max |shimgen - eager| {error:.3g}")
    print(f"per call (us), median of {args.repeats} interleaved rounds x {args.calls} calls; each call then a stream sync")
    for row, values in samples.items():
        print(f"  {row:<30} {statistics.median(values):9.1f}   [{min(values):.1f} .. {max(values):.1f}]")
    ours, eager = samples["shimgen Model.run_handles"], samples["eager torch (no_grad)"]
    ratio = statistics.median(o / e for o, e in zip(ours, eager))
    print(f"ratio shimgen / eager torch: {ratio:.2f} (median of per-round ratios; goal <= 0.5: "
          f"{'met' if ratio <= 0.5 else 'not met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
