// aoti_torch_cuda_topk: the k largest (or smallest) values along a dim and their positions, sorted
// (sorted=False allows any order; sorted order is one of them). MoE routing and sampling use it.
#include "shimgen_runtime/shim_cuda_ops.h"
#include "slice_sort.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_topk(AtenTensorHandle self, int64_t k, int64_t dim,
                                                                int32_t largest, int32_t sorted, AtenTensorHandle* ret0,
                                                                AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    (void)sorted;
    SHIMGEN_REQUIRE(ret0 != nullptr && ret1 != nullptr, "an output pointer is null");
    const Tensor& t = cuda_arg(self, "self");
    const int64_t d = wrap_dim(dim, t.sizes.size());
    const SliceLayout layout = slice_layout(t, d);
    SHIMGEN_REQUIRE(k >= 0 && k <= layout.n, "k " + str(k) + " is out of range for a dim of size " + str(layout.n));
    std::vector<int64_t> sizes = t.sizes;
    if (!sizes.empty()) sizes[static_cast<size_t>(d)] = k;
    const int32_t device = t.storage->device_index;
    Owned values, indices;  // contiguous, as PyTorch's topk meta allocates them
    empty(values, sizes, {}, t.dtype, kCUDA, device);
    empty(indices, sizes, {}, kInt64, kCUDA, device);
    const size_t total = static_cast<size_t>(layout.rows * layout.n);
    if (k > 0 && total > 0) {
      Scratch keys(device, total * t.itemsize()), positions(device, total * 8);
      sort_slices(t, layout, largest != 0, keys.data(), positions.as<int64_t>());
      scatter_columns(values.get()->data(), values.get()->strides, d, keys.data(), layout, k, t.itemsize(), device);
      scatter_columns(indices.get()->data(), indices.get()->strides, d, positions.data(), layout, k, 8, device);
    }
    *ret0 = values.release();
    *ret1 = indices.release();
  });
}
