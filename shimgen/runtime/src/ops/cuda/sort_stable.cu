// aoti_torch_cuda_sort_stable (and aoti_torch_cuda_sort): values and int64 positions along a dim,
// ties in their original order. Results take self's dense layout, as PyTorch's sort meta does.
#include "shimgen_runtime/shim_cuda_ops.h"
#include "slice_sort.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

void sort(AtenTensorHandle self, int64_t dim, int32_t descending, AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  SHIMGEN_REQUIRE(ret0 != nullptr && ret1 != nullptr, "an output pointer is null");
  const Tensor& t = cuda_arg(self, "self");
  const int64_t d = wrap_dim(dim, t.sizes.size());
  const SliceLayout layout = slice_layout(t, d);
  const std::vector<int64_t> strides = dense_strides_like(t.sizes, t.strides);
  const int32_t device = t.storage->device_index;
  Owned values, indices;
  empty(values, t.sizes, strides, t.dtype, kCUDA, device);
  empty(indices, t.sizes, strides, kInt64, kCUDA, device);
  const size_t total = static_cast<size_t>(layout.rows * layout.n);
  if (total > 0) {
    Scratch keys(device, total * t.itemsize()), positions(device, total * 8);
    sort_slices(t, layout, descending != 0, keys.data(), positions.as<int64_t>());
    scatter_columns(values.get()->data(), strides, d, keys.data(), layout, layout.n, t.itemsize(), device);
    scatter_columns(indices.get()->data(), strides, d, positions.data(), layout, layout.n, 8, device);
  }
  *ret0 = values.release();
  *ret1 = indices.release();
}

}  // namespace

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort_stable(AtenTensorHandle self, int32_t* stable, int64_t dim,
                                                            int32_t descending, AtenTensorHandle* ret0,
                                                            AtenTensorHandle* ret1) {
  (void)stable;  // always stable: a stable order is also a valid unstable one
  return guarded(__func__, [&] { sort(self, dim, descending, ret0, ret1); });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort(AtenTensorHandle self, int64_t dim, int32_t descending,
                                                     AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] { sort(self, dim, descending, ret0, ret1); });
}

}  // extern "C"
