// aoti_torch_cpu_slice_Tensor: self[..., start:end:step] along dim, a view sharing self's storage, as
// torch's slice.Tensor. Inductor slices real tensors itself and falls back for complex ones (an
// FNO keeping the low Fourier modes: rfft2(x)[:, :, :m1, :m2]). views::slice serves the CUDA shim
// too.
#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::slice(const Tensor& in, int64_t dim, const int64_t* start,
                                                  const int64_t* end, int64_t step) {
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(rank > 0, "slice() cannot be applied to a 0-dim tensor.");
  const size_t d = static_cast<size_t>(wrap_dim(dim, rank, "dim"));
  SHIMGEN_REQUIRE(step > 0, "slice step must be positive");
  const int64_t size = in.sizes[d];
  // torch's clamping (TensorShape.cpp slice): a negative bound counts from the end once, then
  // start goes to [0, size] and end to [start, size]. INT64_MAX stands for "not given".
  int64_t first = start != nullptr && *start != INT64_MAX ? *start : 0;
  int64_t last = end != nullptr ? *end : INT64_MAX;
  if (first < 0) first += size;
  if (last < 0) last += size;
  first = first < 0 ? 0 : (first > size ? size : first);
  last = last < first ? first : (last > size ? size : last);
  const int64_t count = last - first;
  auto view = alias(in);
  view->storage_offset =
      checked_add(in.storage_offset, checked_mul(first, in.strides[d], "slice offset"), "slice offset");
  view->sizes[d] = count == 0 ? 0 : 1 + (count - 1) / step;
  view->strides[d] = checked_mul(in.strides[d], step, "slice stride");
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_slice_Tensor(AtenTensorHandle self, int64_t dim,
                                                                       int64_t* start, int64_t* end, int64_t step,
                                                                       AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::slice(in, dim, start, end, step));
  });
}
