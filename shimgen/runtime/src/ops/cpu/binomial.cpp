// aten::binomial (no C shim: served by the proxy executor): torch.binomial(count, prob), the number
// of successes in count trials (float32 or float64, as torch's CPU kernel; prob of count's shape). A
// new contiguous tensor of count's shape and dtype. As torch: a count or prob <= 0 draws 0, a prob
// >= 1 draws count, a NaN prob draws NaN; a fractional count is floor(count) trials. A NaN or
// infinite count draws NaN (torch's kernel never returns from a NaN count, and draws NaN or inf for
// an infinite one, by dtype).
#include "../proxy_ops.h"
#include "cpu_op.h"

#include <cmath>
#include <limits>
#include <random>

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

namespace {

double binomial_draw(double count, double prob, std::mt19937_64& engine) {
  if (std::isnan(prob) || std::isnan(count)) return std::numeric_limits<double>::quiet_NaN();
  if (count <= 0.0 || prob <= 0.0) return 0.0;
  if (prob >= 1.0) return count;
  if (std::isinf(count)) return std::numeric_limits<double>::quiet_NaN();
  const auto trials = static_cast<int64_t>(std::floor(count));
  return static_cast<double>(std::binomial_distribution<int64_t>(trials, prob)(engine));
}

}  // namespace

AtenTensorHandle cpu_binomial(AtenTensorHandle count, AtenTensorHandle prob) {
  const Tensor& n = cpu_tensor(count, "count");
  const Tensor& p = cpu_tensor(prob, "prob");
  if (n.dtype != kFloat32 && n.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("binomial: \"binomial_cpu\" not implemented for '") +
                                                scalar_type_name(n.dtype) + "' (torch's CPU kernel: float32, float64)");
  SHIMGEN_REQUIRE(p.dtype == n.dtype, std::string("binomial: prob is ") + scalar_type_name(p.dtype) + ", count " +
                                          scalar_type_name(n.dtype) + "; they must have the same dtype");
  SHIMGEN_REQUIRE(p.sizes == n.sizes, "binomial: prob must have count's shape");
  auto out = empty_tensor(n.sizes, contiguous_strides_of(n.sizes), n.dtype, kCPU, -1);
  auto draw = [&](auto t) {
    using T = decltype(t);
    std::vector<double> counts, probs;
    const auto* ns = reinterpret_cast<const T*>(n.data());
    const auto* ps = reinterpret_cast<const T*>(p.data());
    for_each_element(n, [&](int64_t at) { counts.push_back(static_cast<double>(ns[at])); });
    for_each_element(p, [&](int64_t at) { probs.push_back(static_cast<double>(ps[at])); });
    auto* dst = reinterpret_cast<T*>(out->data());
    std::lock_guard<std::mutex> lock(random_mutex());
    for (size_t i = 0; i < counts.size(); ++i)
      dst[i] = static_cast<T>(binomial_draw(counts[i], probs[i], random_engine()));
  };
  if (n.dtype == kFloat32) draw(float{});
  else draw(double{});
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
