// aoti_torch_cpu_sort_stable: torch.sort (sampling's top-p, MoE token grouping). Values and int64
// indices in new tensors with torch's strides (self's when non-overlapping and dense, else dense
// strides in self's order); a stable sort (equal keys keep their order, whatever `stable` says:
// torch may do the same), NaN treated as the largest value.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void sort_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, bool descending) {
  select_lines<T>(in, values, indices, dim, [&](std::vector<int64_t>& order, auto key) {
    if (descending)
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return nan_first_greater(key(a), key(b)); });
    else
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return nan_last_less(key(a), key(b)); });
    return static_cast<int64_t>(order.size());
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_sort_stable(AtenTensorHandle self, int32_t* stable,
                                                                      int64_t dim, int32_t descending,
                                                                      AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  (void)stable;  // a stable sort satisfies both answers
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const std::vector<int64_t> strides = in.is_non_overlapping_and_dense() ? in.strides
                                                                           : dense_strides_like(in.sizes, in.strides);
    auto values = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
    auto indices = empty_tensor(in.sizes, strides, kInt64, kCPU, -1);
    dispatch_real(in.dtype, "sort", [&](auto type) { sort_lines<decltype(type)>(in, *values, *indices, d, descending != 0); });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
