"""aoti_torch_cuda__weight_int4pack_mm (shimgen's runtime) vs torch._weight_int4pack_mm (torch's
tinygemm kernel), same inputs, same process, on the GPU machine.

    python benchmarks/int4_mm_cuda.py [--runtime LIB] [--k 4096] [--n 4096] [--inner 8] [--group 128]
                                     [--calls 200] [--repeats 7] [--variants all|NAME,NAME,...]

Weights: random int4 packed by torch._convert_weight_to_int4pack (inner_k_tiles --inner), bf16
scales and zeros per --group. For each M in 1..16 both kernels are captured into a CUDA graph of
--calls back-to-back calls (ours on the capture stream through the runtime's caller-stream guard;
its result allocations and frees are stream-ordered, so they capture too) and the graphs are
replayed --repeats times, interleaved; GPU time per call is the median replay over --calls. Graphs
take the host out of the figure: at these sizes a kernel runs for a few microseconds, less than a
Python call costs. Goal: shimgen / torch >= 0.9 in speed, i.e. time ratio <= 1 / 0.9.
The last column is the share of shimgen's time that is its result's stream-ordered allocation
and free alone (aoti_torch_empty_strided of the [M, N] output and its delete, captured the same
way): graph memory nodes that torch's caching allocator does not have.

--variants: instead, every named kernel variant of the runtime (its internal switch
SHIMGEN_INT4_MM_KERNEL, set before each graph capture; "all" = every one in VARIANTS) is captured
for every M and replayed interleaved with torch's, and one table of speeds (torch's time / the
variant's) per M is printed, with the best variant per M; a speed is marked '!' when that
variant's result is off by more than 1e-2 of torch's output scale. The staged and swap variants
serve M <= 8 only, the *m16 ones M <= 16 ('-' above). The last lines give the best variant per M
as the runtime's kAutoByM table, ready to paste.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from ctypes import POINTER, byref, c_int32, c_int64, c_void_p
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The runtime's kernel variants (shimgen/runtime/src/ops/cuda/weight_int4pack_mm.cu, kVariants) and the
# largest M each serves.
VARIANTS = {"auto": 1 << 30, "general": 1 << 30, "staged1": 8, "staged2": 8, "staged4": 8, "swap8x4": 8,
            "swap16x2": 8, "swap32x1": 8, "swap16x1": 8, "swapS16x8": 8, "swapS8x8": 8, "swapS32x4": 8,
            "swapS2p8x8": 8, "swapS2p16x4": 8, "swapS16x8n": 8, "swapS2p16x4n": 8,
            "swapS8x8m16": 16, "swapS16x8m16": 16, "swapS16x8g": 8, "swapS8x16g": 8}
ENV = "SHIMGEN_INT4_MM_KERNEL"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runtime", type=Path, help="a CUDA build of libshimgen_runtime.so (default: build one)")
    parser.add_argument("--k", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--inner", type=int, default=8, choices=(2, 4, 8))
    parser.add_argument("--group", type=int, default=128, choices=(32, 64, 128, 256))
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--work", type=Path, default=Path("/tmp/shimgen-int4-bench"))
    parser.add_argument("--variants", help="'all' or comma-separated variant names: the sweep table")
    parser.add_argument("--m", default="1-16", help="rows to measure: 'LO-HI' (default 1-16)")
    args = parser.parse_args(argv)
    lo, _, hi = args.m.partition("-")
    rows = range(int(lo), int(hi or lo) + 1)
    variants = None
    if args.variants:
        variants = list(VARIANTS) if args.variants == "all" else args.variants.split(",")
        unknown = [v for v in variants if v not in VARIANTS]
        if unknown:
            parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")

    import torch

    if not torch.cuda.is_available():
        print("int4_mm_cuda.py: this torch sees no CUDA device; run it on the GPU machine", file=sys.stderr)
        return 2
    import torch_handles
    from model_latency import build_runtime

    from shimgen.aoti.capi import Runtime

    runtime = args.runtime or build_runtime(args.work, "cuda")
    rt = Runtime(runtime, "executorch_")
    mm = rt.lib[rt.prefix + "aoti_torch_cuda__weight_int4pack_mm"]
    mm.restype, mm.argtypes = c_int32, [c_void_p, c_void_p, c_int64, c_void_p, POINTER(c_void_p)]
    delete = rt.lib[rt.prefix + "aoti_torch_delete_tensor_object"]
    delete.restype, delete.argtypes = c_int32, [c_void_p]
    empty = rt.lib[rt.prefix + "aoti_torch_empty_strided"]
    empty.restype = c_int32
    empty.argtypes = [c_int64, POINTER(c_int64), POINTER(c_int64), c_int32, c_int32, c_int32, POINTER(c_void_p)]

    def wrap(t):
        return torch_handles.wrap(rt, t)

    k, n, group = args.k, args.n, args.group
    g = torch.Generator(device="cuda").manual_seed(0)
    w = torch.randint(0, 16, (n, k), dtype=torch.int32, device="cuda", generator=g)
    packed = torch._convert_weight_to_int4pack((w[:, ::2] << 4 | w[:, 1::2]).to(torch.uint8), args.inner)
    qsz = torch.cat([torch.rand(k // group, n, 1, device="cuda", generator=g) * 0.02 + 1e-3,
                     torch.randn(k // group, n, 1, device="cuda", generator=g) * 0.01], 2).to(torch.bfloat16).contiguous()
    hb, hq = wrap(packed), wrap(qsz)
    stream = torch.cuda.Stream()
    print(f"_weight_int4pack_mm, K={k} N={n} inner_k_tiles={args.inner} group={group} on {torch.cuda.get_device_name(0)}; "
          f"torch {torch.__version__}")
    print(f"GPU time per call (us): median of {args.repeats} interleaved graph replays x {args.calls} calls")
    if variants is not None:
        return sweep(args, rt, mm, delete, wrap, packed, qsz, hb, hq, stream, g, variants, rows)
    print(f"{'M':>3} {'torch':>9} {'shimgen':>9} {'speed shimgen/torch':>20} {'max rel err':>12} {'alloc share':>12}")
    worst = float("inf")
    for m in rows:
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
        ha = wrap(a)
        want = torch._weight_int4pack_mm(a, packed, group, qsz)
        out = c_void_p()
        assert mm(ha, hb, group, hq, byref(out)) == 0, rt.last_error()
        got = torch.empty_like(want)
        torch_handles.copy_into(rt, got, out.value)
        delete(out.value)
        err = float((got.float() - want.float()).abs().max() / (want.float().abs().max() + 1e-6))

        def ours(ha: int = ha) -> None:
            result = c_void_p()
            mm(ha, hb, group, hq, byref(result))
            delete(result.value)

        def theirs(a: torch.Tensor = a) -> None:
            torch._weight_int4pack_mm(a, packed, group, qsz)

        sizes, strides = (c_int64 * 2)(m, n), (c_int64 * 2)(n, 1)

        def alloc(sizes=sizes, strides=strides) -> None:
            result = c_void_p()
            empty(2, sizes, strides, 15, 1, 0, byref(result))  # bfloat16 on cuda:0
            delete(result.value)

        graphs = {}
        with torch.cuda.stream(stream), rt.caller_stream(stream.cuda_stream):
            for name, fn in (("torch", theirs), ("shimgen", ours), ("alloc", alloc)):
                for _ in range(3):
                    fn()
                stream.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, stream=stream):
                    for _ in range(args.calls):
                        fn()
                graphs[name] = graph
        times: dict[str, list[float]] = {"torch": [], "shimgen": [], "alloc": []}
        for _ in range(args.repeats):
            for name, graph in graphs.items():
                # Events and replay on one stream (a replay runs on the current stream).
                with torch.cuda.stream(stream):
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record(stream)
                    graph.replay()
                    end.record(stream)
                end.synchronize()
                times[name].append(start.elapsed_time(end) * 1000 / args.calls)
        t_torch, t_ours = statistics.median(times["torch"]), statistics.median(times["shimgen"])
        speed = t_torch / t_ours
        worst = min(worst, speed)
        share = statistics.median(times["alloc"]) / t_ours
        print(f"{m:>3} {t_torch:9.2f} {t_ours:9.2f} {speed:20.2f} {err:12.2e} {share:12.2f}")
        delete(ha)
        del graphs
    print(f"ratio shimgen / torch speed, worst M: {worst:.2f} (goal >= 0.9: {'met' if worst >= 0.9 else 'not met'})")
    return 0


def sweep(args, rt, mm, delete, wrap, packed, qsz, hb, hq, stream, g, variants, rows) -> int:
    """Every variant against torch at every M, in one process: the table the dispatch is chosen from."""
    import torch
    import torch_handles

    k, group = args.k, args.group
    saved = os.environ.get(ENV)
    width = max(9, *(len(v) + 1 for v in variants))
    print("speed = torch's time / the variant's (> 1: faster than torch); '!' = result off by > 1e-2")
    print(f"{'M':>3} {'torch us':>9}" + "".join(f"{v:>{width}}" for v in variants) + "   best")
    best_of: dict[int, tuple[str, float]] = {}
    try:
        for m in rows:
            a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
            ha = wrap(a)
            want = torch._weight_int4pack_mm(a, packed, group, qsz)
            scale = float(want.float().abs().max()) + 1e-6
            errs: dict[str, float] = {}
            graphs: dict[str, torch.cuda.CUDAGraph] = {}

            def theirs(a: torch.Tensor = a) -> None:
                torch._weight_int4pack_mm(a, packed, group, qsz)

            def ours(ha: int = ha) -> None:
                result = c_void_p()
                mm(ha, hb, group, hq, byref(result))
                delete(result.value)

            names = ["torch"] + [v for v in variants if m <= VARIANTS[v]]
            failed: dict[str, str] = {}
            with torch.cuda.stream(stream), rt.caller_stream(stream.cuda_stream):
                for name in names:
                    if name != "torch":
                        os.environ[ENV] = name
                        out = c_void_p()
                        if mm(ha, hb, group, hq, byref(out)) != 0:  # reported, not fatal: the others still run
                            failed[name] = rt.last_error()
                            print(f"M={m} {name}: {failed[name]}", flush=True)
                            continue
                        got = torch.empty_like(want)
                        torch_handles.copy_into(rt, got, out.value)
                        delete(out.value)
                        errs[name] = float((got.float() - want.float()).abs().max()) / scale
                    fn = theirs if name == "torch" else ours
                    for _ in range(3):
                        fn()
                    stream.synchronize()
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph, stream=stream):
                        for _ in range(args.calls):
                            fn()
                    graphs[name] = graph
            times: dict[str, list[float]] = {name: [] for name in graphs}
            for _ in range(args.repeats):
                for name, graph in graphs.items():
                    with torch.cuda.stream(stream):
                        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        start.record(stream)
                        graph.replay()
                        end.record(stream)
                    end.synchronize()
                    times[name].append(start.elapsed_time(end) * 1000 / args.calls)
            t_torch = statistics.median(times["torch"])
            cells = []
            for v in variants:
                if v in failed:
                    cells.append(f"{'ERR':>{width}}")
                    continue
                if v not in graphs:
                    cells.append(f"{'-':>{width}}")
                    continue
                speed = t_torch / statistics.median(times[v])
                bad = errs[v] > 1e-2
                cells.append(f"{speed:>{width - 1}.2f}{'!' if bad else ' '}")
                if not bad and v != "auto" and speed > best_of.get(m, ("", 0.0))[1]:
                    best_of[m] = (v, speed)
            best = best_of.get(m, ("-", 0.0))
            print(f"{m:>3} {t_torch:9.2f}" + "".join(cells) + f"   {best[0]} {best[1]:.2f}", flush=True)
            delete(ha)
            del graphs
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved
    if all(m in best_of for m in range(1, 17)):
        # Ready to paste into weight_int4pack_mm.cu's kAutoByM (M = 1..16).
        picks = [best_of[m][0] for m in range(1, 17)]
        print("kAutoByM = {" + ", ".join(f"Variant::k{v[0].upper()}{v[1:]}" for v in picks) + "}")
    worst = min((s for _, s in best_of.values()), default=0.0)
    print(f"best variant per M, worst M: {worst:.2f} (goal >= 0.9: {'met' if worst >= 0.9 else 'not met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
