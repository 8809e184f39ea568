// aoti_torch_cpu_topk: MoE routing and top-k sampling. Like torch: new contiguous values and int64
// indices with `dim` cut to k; NaN counts as the largest value; largest=0 takes the smallest. The
// result is always sorted (sorted=0 leaves the order to the implementation; this is one of them);
// equal values come in index order.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void topk_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, int64_t k, bool largest) {
  select_lines<T>(in, values, indices, dim, [&](std::vector<int64_t>& order, auto key) {
    // Ties broken by index, so the partial sort's answer is one well-defined order.
    auto first = [&](int64_t a, int64_t b) {
      const auto ka = key(a), kb = key(b);
      if (largest ? nan_first_greater(ka, kb) : nan_last_less(ka, kb)) return true;
      if (largest ? nan_first_greater(kb, ka) : nan_last_less(kb, ka)) return false;
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), first);
    return k;
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_topk(AtenTensorHandle self, int64_t k, int64_t dim,
                                                               int32_t largest, int32_t sorted, AtenTensorHandle* ret0,
                                                               AtenTensorHandle* ret1) {
  (void)sorted;  // always sorted: a valid answer to both
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const int64_t n = in.sizes.empty() ? 1 : in.sizes[d];
    SHIMGEN_REQUIRE(k >= 0 && k <= n, "k (" + std::to_string(k) + ") is out of range for a dim of size " +
                                          std::to_string(n));
    std::vector<int64_t> sizes = in.sizes;
    if (!sizes.empty()) sizes[d] = k;
    auto values = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
    auto indices = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
    if (k > 0)
      dispatch_real(in.dtype, "topk", [&](auto type) { topk_lines<decltype(type)>(in, *values, *indices, d, k, largest != 0); });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
