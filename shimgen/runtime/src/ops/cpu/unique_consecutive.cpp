// aten::unique_consecutive (no C shim: served by the proxy executor): torch.unique_consecutive with
// dim None (with a dim: unique_dim.cpp) (CTC greedy decoding collapses repeated labels this way). The flattened self
// with each run of equal values kept once, in order; the inverse (self's shape: the run of each element) and the run
// lengths when asked, else empty int64 [0] tensors, as torch returns them.
#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_unique_consecutive(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                            AtenTensorHandle* inverse, AtenTensorHandle* counts) {
  const Tensor& in = cpu_tensor(self, "self");
  std::unique_ptr<Tensor> runs, inv, cnt;
  dispatch_real(in.dtype, "unique_consecutive", [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    std::vector<T> kept;
    std::vector<int64_t> run_of, lengths;
    for_each_element(in, [&](int64_t at) {
      const T v = src[at];
      if (kept.empty() || !(value_of(kept.back()) == value_of(v))) {
        kept.push_back(v);
        lengths.push_back(0);
      }
      ++lengths.back();
      run_of.push_back(static_cast<int64_t>(kept.size()) - 1);
    });
    const int64_t n = static_cast<int64_t>(kept.size());
    runs = empty_tensor({n}, {1}, in.dtype, kCPU, -1);
    std::copy(kept.begin(), kept.end(), reinterpret_cast<T*>(runs->data()));
    inv = return_inverse ? empty_tensor(in.sizes, contiguous_strides_of(in.sizes), kInt64, kCPU, -1)
                         : empty_tensor({0}, {1}, kInt64, kCPU, -1);
    if (return_inverse) std::copy(run_of.begin(), run_of.end(), reinterpret_cast<int64_t*>(inv->data()));
    cnt = return_counts ? empty_tensor({n}, {1}, kInt64, kCPU, -1) : empty_tensor({0}, {1}, kInt64, kCPU, -1);
    if (return_counts) std::copy(lengths.begin(), lengths.end(), reinterpret_cast<int64_t*>(cnt->data()));
  });
  *values = wrap(std::move(runs));
  *inverse = wrap(std::move(inv));
  *counts = wrap(std::move(cnt));
}

}  // namespace shimgen::rt::proxy_ops
