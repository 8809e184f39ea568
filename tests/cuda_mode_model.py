"""A step-by-step model of torch's CUDA ``mode`` kernel (aten/src/ATen/native/cuda/TensorModeKernel.cu,
.cuh and block_reduce.cuh, as published): lines of up to 2048 values go to one block of P / 2 threads
(P: 128, 1024 or 2048), which sorts the line, gives each sorted position the length-so-far of its run
of equal values, reduces (length, position) pairs to the largest length, first each thread its two
positions, then shuffle-down trees (offsets 16 .. 1) over the lanes of each warp and over the warps,
keeping the left operand on equal lengths; the index returned is the value's last position in the
line. Longer lines go through thrust: the first longest run in sorted order, its value's first index.

The runtime implements the same rule in closed form (shimgen/runtime/src/ops/mode.h); the test in
tests/integration/test_runtime.py runs both on the same rows. Integer values only (NaN's place in a
bitonic sort is not modelled).
"""

from __future__ import annotations

WARP = 32


def _block_size(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return 128 if p <= 128 else 1024 if p <= 1024 else 2048


def _combine(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return b if b[0] > a[0] else a


def _warp_reduce(lanes: list[tuple[int, int]]) -> tuple[int, int]:
    values = list(lanes)
    offset = WARP // 2
    while offset:
        # __shfl_down_sync: a lane whose source is past the warp reads its own value
        values = [_combine(values[i], values[i + offset] if i + offset < WARP else values[i]) for i in range(WARP)]
        offset //= 2
    return values[0]


def cuda_mode(row: list[int]) -> tuple[int, int]:
    """(value, index) as torch's CUDA kernel returns them for one line."""
    n = len(row)
    ordered = sorted(row)
    if n > 2048:  # thrust: reduce_by_key, max_element (the first), find (the first in the stable sort)
        count, run = 0, 0
        for i, v in enumerate(ordered):
            run = run + 1 if i and ordered[i - 1] == v else 1
            count = max(count, run)
        first_longest = min(v for v in set(ordered) if ordered.count(v) == count)
        return first_longest, row.index(first_longest)
    so_far = [0] * n  # run length so far, minus one (the kernel's segmented scan)
    for i in range(1, n):
        so_far[i] = so_far[i - 1] + 1 if ordered[i] == ordered[i - 1] else 0
    threads = _block_size(n) // 2
    identity = (0, 0)
    local = []
    for t in range(threads):
        a = (so_far[2 * t], 2 * t) if 2 * t < n else identity
        b = (so_far[2 * t + 1], 2 * t + 1) if 2 * t + 1 < n else identity
        local.append(_combine(a, b))
    warps = [_warp_reduce(local[w * WARP:(w + 1) * WARP]) for w in range(threads // WARP)]
    winner = _warp_reduce([warps[lane] if lane < len(warps) else identity for lane in range(WARP)])
    value = ordered[winner[1]]
    return value, max(i for i, v in enumerate(row) if v == value)
