// Advanced indexing self[indices] (aoti_torch_{cpu,cuda}_index_Tensor) as a plan computed on the host
// from self's metadata and the index tensors' values: the result's shape and layout, and for every
// element its source offset in self. The CPU op (ops/cpu/index_Tensor.cpp, which defines plan()),
// the CUDA op's device gather (ops/cuda/index_Tensor.cu) and index_put_out's writes
// (ops/cpu/index_put.cpp, offsets into out) all walk it; none reads self here.
// Nothing here is exported.
#pragma once

#include <cstdint>
#include <vector>

#include "../internal.h"

namespace shimgen::rt::index_plan {

struct Plan {
  std::vector<int64_t> sizes;          // the result's: dims before the indexed ones, the index shape, dims after
  std::vector<int64_t> strides;        // the result's layout: torch's (meta_index_Tensor)
  std::vector<int64_t> self_strides;   // self's strides at the result's dims (0 at the index shape's)
  std::vector<int64_t> point_offsets;  // per point of the index shape (row-major): its offset into self
  int64_t after = 1;                   // elements per point in row-major order (product of the dims after)
  // Element k (row-major over sizes) comes from self at self_offset(k) + point_offsets[(k / after) % points].
  int64_t points() const { return static_cast<int64_t>(point_offsets.size()); }
};

// The plan of self[indices]: indices[i] null (None: the dim is kept) or a host int64/int32 index
// tensor (negative counts from the end) or a bool/uint8 mask (its nonzero coordinates, one index per
// dim it covers). Checks every index against self's sizes (InvalidArgument), refuses other dtypes
// (Unsupported).
Plan plan(const Tensor& self, const std::vector<const Tensor*>& indices);

}  // namespace shimgen::rt::index_plan
