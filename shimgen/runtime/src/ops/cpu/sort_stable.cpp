// aoti_torch_cpu_sort_stable: torch.sort (sampling's top-p, MoE token grouping). Values and int64
// indices in new tensors with torch's strides (self's when non-overlapping and dense, else dense
// strides in self's order), NaN treated as the largest value. Equal keys come out in torch's order:
// kept with stable=True; with stable False or null (torch.sort's default) torch's CPU kernel runs
// std::sort over (value, index) pairs comparing values only, which reorders ties in lines longer
// than 16, so the same std::sort runs here over the indices with the same comparison. (torch's
// radix sort, for 1-d integer lines of 32768 elements or more, is stable and gives the stable order.)
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void sort_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim,
                                   bool descending, bool stable) {
  select_lines<T>(in, values, indices, dim, [&](std::vector<int64_t>& order, auto key) {
    auto sort = [&](auto before) {
      if (stable) std::stable_sort(order.begin(), order.end(), before);
      else std::sort(order.begin(), order.end(), before);
    };
    if (descending) sort([&](int64_t a, int64_t b) { return nan_first_greater(key(a), key(b)); });
    else sort([&](int64_t a, int64_t b) { return nan_last_less(key(a), key(b)); });
    return static_cast<int64_t>(order.size());
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_sort_stable(AtenTensorHandle self, int32_t* stable,
                                                                      int64_t dim, int32_t descending,
                                                                      AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const std::vector<int64_t> strides =
        in.is_non_overlapping_and_dense() ? in.strides : dense_strides_like(in.sizes, in.strides);
    auto values = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
    auto indices = empty_tensor(in.sizes, strides, kInt64, kCPU, -1);
    // torch's radix sort (stable): a 1-d integer self of at least 32768 elements (its grain size),
    // ascending; measured on torch 2.13 for int8-64 and uint8.
    const bool integer = is_integral_dtype(in.dtype) && in.dtype != kBool;
    const bool radix = integer && in.sizes.size() == 1 && in.sizes[0] >= 32768 && descending == 0;
    const bool keep_ties = (stable != nullptr && *stable != 0) || radix;
    dispatch_real(in.dtype, "sort",
                  [&](auto type) { sort_lines<decltype(type)>(in, *values, *indices, d, descending != 0, keep_ties); });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
