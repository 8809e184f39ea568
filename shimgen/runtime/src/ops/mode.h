// torch.mode computed on host tensors, for both devices' shims. Ties between equally frequent values:
// torch's CPU kernel gives them to the smallest value. Its CUDA kernel (lines of up to 2048: one block
// per line sorts it, counts runs, and finds the longest with a warp-shuffle tree reduction that keeps
// the left operand on equal counts) gives them to the run whose end in the sorted line the tree
// prefers: cuda_tree_rank below, lowest first. Smallest, largest or a middle value, by position.
// Longer lines go through thrust (the first longest run: the smallest value, its first index).
// The index is the value's last position in the line (CUDA: "always the largest index").
#pragma once

#include <cstdint>

#include "shimgen_runtime/shim.h"

namespace shimgen::rt {

enum class ModeTies { kSmallest, kCudaKernel };

// The CUDA kernel's preference among run ends at sorted positions p (lower wins): thread p / 2 holds
// positions 2t and 2t + 1 (the even one kept on a tie), its lane t % 32 and warp t / 32 meet in two
// shuffle-down trees (offsets 16, 8, 4, 2, 1), where a value's rank is its 5-bit index reversed.
inline int64_t cuda_tree_rank(int64_t p) {
  auto reversed5 = [](int64_t x) {
    int64_t r = 0;
    for (int bit = 0; bit < 5; ++bit) r |= ((x >> bit) & 1) << (4 - bit);
    return r;
  };
  const int64_t thread = p / 2;
  return (reversed5(thread / 32) << 6) | (reversed5(thread % 32) << 1) | (p % 2);
}
// The longest line the fused kernel takes (2 * 1024 threads); longer ones go through thrust.
constexpr int64_t kCudaFusedModeMax = 2048;

// Fills *ret0 (values) and *ret1 (int64 indices) with new host tensors; throws ShimError (the
// caller's guarded() reports it) on a bad argument.
void mode_on_host(AtenTensorHandle self, int64_t dim, int32_t keepdim, ModeTies ties, AtenTensorHandle* ret0,
                  AtenTensorHandle* ret1);

}  // namespace shimgen::rt
