// aten::bincount (no C shim: served by the proxy executor): occurrence counts of non-negative
// integers (MoE load balancing, token statistics). self 1-d of an integer dtype; the result has
// max(max(self) + 1, minlength) bins: int64 counts, or the sum of `weights` per bin in weights'
// dtype when floating (double for integer weights), as torch.
#include <algorithm>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_bincount(AtenTensorHandle self, AtenTensorHandle weights, int64_t minlength) {
  const Tensor& in = cpu_tensor(self, "self");
  const Tensor* w = weights != nullptr ? &cpu_tensor(weights, "weights") : nullptr;
  SHIMGEN_REQUIRE(in.sizes.size() == 1, "bincount only supports 1-d non-negative integral inputs.");
  SHIMGEN_REQUIRE(is_integral_dtype(in.dtype) && in.dtype != kBool,
                  "bincount only supports 1-d non-negative integral inputs.");
  SHIMGEN_REQUIRE(minlength >= 0, "minlength should be >= 0");
  SHIMGEN_REQUIRE(w == nullptr || (w->sizes.size() == 1 && w->sizes[0] == in.sizes[0]),
                  "weights should be 1-d and have the same length as input");
  std::vector<int64_t> values;
  dispatch_real(in.dtype, "bincount", [&](auto t) {
    const auto* src = reinterpret_cast<const decltype(t)*>(in.data());
    for_each_element(in, [&](int64_t at) { values.push_back(static_cast<int64_t>(src[at])); });
  });
  int64_t bins = minlength;
  for (int64_t v : values) {
    SHIMGEN_REQUIRE(v >= 0, "bincount only supports 1-d non-negative integral inputs.");
    bins = std::max(bins, v + 1);
  }
  const int32_t out_dtype = w == nullptr                                                                ? kInt64
                            : (w->dtype == kFloat32 || w->dtype == kFloat64 || is_half_dtype(w->dtype)) ? w->dtype
                                                                                                        : kFloat64;
  std::vector<double> sums(static_cast<size_t>(bins), 0.0);
  if (w != nullptr) {
    size_t k = 0;
    dispatch_real(w->dtype, "bincount", [&](auto t) {
      const auto* src = reinterpret_cast<const decltype(t)*>(w->data());
      for_each_element(
          *w, [&](int64_t at) { sums[static_cast<size_t>(values[k++])] += static_cast<double>(value_of(src[at])); });
    });
  } else {
    for (int64_t v : values) sums[static_cast<size_t>(v)] += 1.0;
  }
  auto out = empty_tensor({bins}, {1}, out_dtype, kCPU, -1);
  dispatch_real(out_dtype, "bincount", [&](auto t) {
    using T = decltype(t);
    auto* dst = reinterpret_cast<T*>(out->data());
    for (int64_t b = 0; b < bins; ++b) {
      if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>)
        dst[b] = T(static_cast<float>(sums[static_cast<size_t>(b)]));
      else dst[b] = static_cast<T>(sums[static_cast<size_t>(b)]);
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
