// The view ops (pure metadata: a new handle on self's storage with other sizes, strides, offset or
// dtype), one function each for every device: the CPU shims (ops/cpu/<op>.cpp, which define them),
// the CUDA shims (ops/cuda/<op>.cu) and the proxy executor's aten::unsqueeze, aten::expand,
// aten::select.int and the splits all call these. Inductor generates views of real tensors itself; it falls back for
// complex ones (FFT spectra, rotary embeddings in complex form, FNO spectral weights). Each throws ShimError on a bad
// argument and reads no element; reshape alone copies, where torch's reshape does. Nothing here is
// exported.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

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
// self[..., start:end:step] along dim (torch's slice.Tensor): start / end null for None, negative
// ones counted from the end, both clamped to [0, size]; step > 0. sizes[dim] = ceil((end - start) /
// step), strides[dim] * step, offset + start * strides[dim].
std::unique_ptr<Tensor> slice(const Tensor& self, int64_t dim, const int64_t* start, const int64_t* end, int64_t step);
// torch.split_with_sizes: one slice of self along dim per entry (entries >= 0, summing to the dim's
// size); torch.split(split_size): pieces of split_size along dim, the last one shorter (one piece when
// split_size is 0 on an empty dim or exceeds the dim). ops/cpu/split_with_sizes.cpp.
std::vector<std::unique_ptr<Tensor>> split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes,
                                                      int64_t dim);
std::vector<std::unique_ptr<Tensor>> split(const Tensor& self, int64_t split_size, int64_t dim);
// self.select(dim, index) (self[..., index, ...]): dim dropped, offset + index * strides[dim];
// a negative index counts from the end.
std::unique_ptr<Tensor> select(const Tensor& self, int64_t dim, int64_t index);
// self.expand(size) (torch's inferExpandGeometry): size-1 dims and new leading dims stretched with
// stride 0; -1 keeps an existing size.
std::unique_ptr<Tensor> expand(const Tensor& self, const std::vector<int64_t>& size);
// The strides torch's view/reshape give self's elements at `shape` without moving them (ATen's
// computeStride), or false when no strides can (the elements are not laid out as `shape` needs).
bool view_strides(const Tensor& self, const std::vector<int64_t>& shape, std::vector<int64_t>* strides);
// torch.reshape: shape's one -1 inferred; a view when view_strides finds strides, else (as torch:
// _unsafe_view(clone(contiguous))) a new contiguous copy on self's device, offset 0.
std::unique_ptr<Tensor> reshape(const Tensor& self, const int64_t* shape, int64_t shape_len);

}  // namespace shimgen::rt::views
