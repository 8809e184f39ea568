// Sorting every slice of a CUDA tensor along one dim: the shared core of topk and sort_stable.
#pragma once

#include <cstdint>
#include <vector>

#include "op_support.cuh"

namespace shimgen::rt::cuda_ops {

// `self` seen with `dim` moved last: the other dims in order, then dim (sizes and strides).
struct SliceLayout {
  std::vector<int64_t> sizes, strides;
  int64_t rows = 0, n = 0;
};
SliceLayout slice_layout(const Tensor& self, int64_t dim);

// Stable sort of every slice: writes the keys (self's dtype) and int64 positions within the slice,
// each a row-major [rows, n] buffer, on the device's effective stream. Ties keep their order.
void sort_slices(const Tensor& self, const SliceLayout& layout, bool descending, char* keys_out,
                 int64_t* positions_out);

// Copies the first `take` columns of a row-major [rows, n] buffer into `dst`, a tensor of layout's
// shape with the dim of size `take`, laid out with `dst_strides` (self's dim order, not permuted).
void scatter_columns(char* dst, const std::vector<int64_t>& dst_strides, int64_t dim, const char* src,
                     const SliceLayout& layout, int64_t take, size_t itemsize, int32_t device);

}  // namespace shimgen::rt::cuda_ops
