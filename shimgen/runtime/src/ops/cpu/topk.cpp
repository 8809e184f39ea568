// aoti_torch_cpu_topk: MoE routing and top-k sampling. Like torch: new contiguous values and int64
// indices with `dim` cut to k; NaN counts as the largest value; largest=0 takes the smallest; equal
// values and sorted=0 in torch's order (below).
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// torch's CPU kernel (ATen/native/TopKImpl.h, a public header) picks with std::partial_sort when
// k * 64 <= n, else std::nth_element at k - 1 and, when sorted, std::sort of the first k - 1; its
// comparator looks at values only. Equal values (a zero-initialised MoE router scores every expert
// alike) then come in whatever order those algorithms leave, so the same calls on the same initial
// order (index order) with the same comparator give torch's indices exactly.
template <class T> void topk_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim,
                                   int64_t k, bool largest, bool sorted) {
  select_lines<T>(in, values, indices, dim, [&](std::vector<int64_t>& order, auto key) {
    auto before = [&](int64_t a, int64_t b) {
      return largest ? nan_first_greater(key(a), key(b)) : nan_last_less(key(a), key(b));
    };
    const auto n = static_cast<int64_t>(order.size());
    if (k * 64 <= n) {
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    } else {
      std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), before);
      if (sorted) std::sort(order.begin(), order.begin() + (k - 1), before);
    }
    return k;
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_topk(AtenTensorHandle self, int64_t k, int64_t dim,
                                                               int32_t largest, int32_t sorted, AtenTensorHandle* ret0,
                                                               AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const int64_t n = in.sizes.empty() ? 1 : in.sizes[d];
    SHIMGEN_REQUIRE(k >= 0 && k <= n,
                    "k (" + std::to_string(k) + ") is out of range for a dim of size " + std::to_string(n));
    std::vector<int64_t> sizes = in.sizes;
    if (!sizes.empty()) sizes[d] = k;
    auto values = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
    auto indices = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
    if (k > 0)
      dispatch_real(in.dtype, "topk", [&](auto type) {
        topk_lines<decltype(type)>(in, *values, *indices, d, k, largest != 0, sorted != 0);
      });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
