// torch.mode computed on host tensors, for both devices' shims: torch's CPU kernel gives ties between
// values to the smallest value, its CUDA kernel (a sort, then a reduction over run lengths that keeps
// the later of equal counts) to the largest. The index is the value's last position in the line.
#pragma once

#include <cstdint>

#include "shimgen_runtime/shim.h"

namespace shimgen::rt {

enum class ModeTies { kSmallest, kLargest };

// Fills *ret0 (values) and *ret1 (int64 indices) with new host tensors; throws ShimError (the
// caller's guarded() reports it) on a bad argument.
void mode_on_host(AtenTensorHandle self, int64_t dim, int32_t keepdim, ModeTies ties, AtenTensorHandle* ret0,
                  AtenTensorHandle* ret1);

}  // namespace shimgen::rt
