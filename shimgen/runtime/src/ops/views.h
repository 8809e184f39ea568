// The view ops (pure metadata: a new handle on self's storage with other sizes, strides, offset or
// dtype), one function each for every device: the CPU shims (ops/cpu/<op>.cpp, which define them),
// the CUDA shims (ops/cuda/<op>.cu) and the proxy executor's aten::unsqueeze all call these. Inductor
// generates views of real tensors itself; it falls back for complex ones (FFT spectra, rotary
// embeddings in complex form). Each throws ShimError on a bad argument and reads no element.
// Nothing here is exported.
#pragma once

#include <cstdint>
#include <memory>

#include "../internal.h"

namespace shimgen::rt::views {

// A new tensor sharing in's storage, dtype, offset, sizes and strides: what each view then edits.
inline std::unique_ptr<Tensor> alias(const Tensor& in) {
  auto view = new_tensor();
  view->storage = in.storage;
  view->dtype = in.dtype;
  view->storage_offset = in.storage_offset;
  view->sizes = in.sizes;
  view->strides = in.strides;
  return view;
}

// torch.view_as_real: complex64/128 as float32/64 [..., 2] (strides * 2 + [1], offset * 2).
std::unique_ptr<Tensor> view_as_real(const Tensor& self);
// self.view(dtype): the same bytes as another dtype (ops/cpu/view_dtype.cpp has torch's rules).
std::unique_ptr<Tensor> view_dtype(const Tensor& self, int32_t dtype);
// torch.view_as_complex: float32/64 [..., 2] (last stride 1, other strides and offset even) as complex.
std::unique_ptr<Tensor> view_as_complex(const Tensor& self);
// self's dims reordered: sizes[i] = self.sizes[dims[i]] (dims a permutation, negative dims wrap).
std::unique_ptr<Tensor> permute(const Tensor& self, const int64_t* dims, int64_t dims_len);
// self without dim when its size is 1, else self's shape.
std::unique_ptr<Tensor> squeeze_dim(const Tensor& self, int64_t dim);
// self with a size-1 dim inserted at dim (torch's stride: sizes[dim] * strides[dim], or 1 at the end).
std::unique_ptr<Tensor> unsqueeze(const Tensor& self, int64_t dim);

}  // namespace shimgen::rt::views
