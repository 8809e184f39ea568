// aten::_unique2 (no C shim: served by the proxy executor): torch.unique (vocabulary compaction,
// label remapping, dedup of routed ids). Sorted distinct values of the flattened self; the inverse
// (self's shape) and counts when asked, else empty int64 [0] tensors, as torch returns them. NaNs
// are each their own value, sorted last (torch's CPU sort-based unique).
#include <algorithm>
#include <numeric>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_unique2(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                 AtenTensorHandle* inverse, AtenTensorHandle* counts) {
  const Tensor& in = cpu_tensor(self, "self");
  std::unique_ptr<Tensor> uniq, inv, cnt;
  dispatch_real(in.dtype, "unique", [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    std::vector<T> flat;
    flat.reserve(static_cast<size_t>(in.numel()));
    for_each_element(in, [&](int64_t at) { flat.push_back(src[at]); });
    std::vector<int64_t> order(flat.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return nan_last_less(value_of(flat[a]), value_of(flat[b])); });
    std::vector<int64_t> position(flat.size()), tally;
    std::vector<T> distinct;
    for (size_t k = 0; k < order.size(); ++k) {
      const auto v = value_of(flat[static_cast<size_t>(order[k])]);
      const bool same = !distinct.empty() && value_of(distinct.back()) == v;  // NaN != NaN: each its own
      if (!same) {
        distinct.push_back(flat[static_cast<size_t>(order[k])]);
        tally.push_back(0);
      }
      ++tally.back();
      position[static_cast<size_t>(order[k])] = static_cast<int64_t>(distinct.size()) - 1;
    }
    const int64_t u = static_cast<int64_t>(distinct.size());
    uniq = empty_tensor({u}, {1}, in.dtype, kCPU, -1);
    std::copy(distinct.begin(), distinct.end(), reinterpret_cast<T*>(uniq->data()));
    inv = return_inverse ? empty_tensor(in.sizes, contiguous_strides_of(in.sizes), kInt64, kCPU, -1)
                         : empty_tensor({0}, {1}, kInt64, kCPU, -1);
    if (return_inverse) std::copy(position.begin(), position.end(), reinterpret_cast<int64_t*>(inv->data()));
    cnt = return_counts ? empty_tensor({u}, {1}, kInt64, kCPU, -1) : empty_tensor({0}, {1}, kInt64, kCPU, -1);
    if (return_counts) std::copy(tally.begin(), tally.end(), reinterpret_cast<int64_t*>(cnt->data()));
  });
  *values = wrap(std::move(uniq));
  *inverse = wrap(std::move(inv));
  *counts = wrap(std::move(cnt));
}

}  // namespace shimgen::rt::proxy_ops
