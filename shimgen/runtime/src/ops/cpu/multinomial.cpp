// aten::multinomial (no C shim: served by the proxy executor, proxy_executor.cpp): token sampling
// in generate() (top-k / top-p then multinomial). self: non-negative finite weights, [n] or
// [rows, n]; num_samples int64 indices per row, drawn from the runtime's engine (random.cpp). With
// replacement each draw inverts the cumulative weights; without, each draw removes its category
// (so a row needs num_samples categories of non-zero weight, as torch requires).
#include <algorithm>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_multinomial(AtenTensorHandle self, int64_t num_samples, bool replacement) {
  const Tensor& in = cpu_tensor(self, "self");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(rank == 1 || rank == 2, "prob_dist must be 1 or 2 dim");
  SHIMGEN_REQUIRE(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t rows = rank == 1 ? 1 : in.sizes[0], n = in.sizes[rank - 1];
  const int64_t row_stride = rank == 1 ? 0 : in.strides[0], step = in.strides[rank - 1];
  SHIMGEN_REQUIRE(n > 0, "multinomial: the distribution has no categories");
  SHIMGEN_REQUIRE(replacement || num_samples <= n,
                  "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  std::vector<double> weights(static_cast<size_t>(rows * n));
  dispatch_floating(in.dtype, "multinomial", [&](auto t) {
    const auto* src = reinterpret_cast<const decltype(t)*>(in.data());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < n; ++i)
        weights[static_cast<size_t>(r * n + i)] = static_cast<double>(value_of(src[r * row_stride + i * step]));
  });
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0.0;
    int64_t positive = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double w = weights[static_cast<size_t>(r * n + i)];
      SHIMGEN_REQUIRE(std::isfinite(w) && w >= 0.0, "probability tensor contains either `inf`, `nan` or element < 0");
      total += w;
      positive += w > 0.0;
    }
    SHIMGEN_REQUIRE(total > 0.0, "invalid multinomial distribution (sum of probabilities <= 0)");
    SHIMGEN_REQUIRE(
        replacement || positive >= num_samples,
        "invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)");
  }
  std::vector<int64_t> sizes = rank == 1 ? std::vector<int64_t>{num_samples} : std::vector<int64_t>{rows, num_samples};
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
  auto* dst = reinterpret_cast<int64_t*>(out->data());
  std::vector<double> cumulative(static_cast<size_t>(n));
  std::lock_guard<std::mutex> lock(random_mutex());
  for (int64_t r = 0; r < rows; ++r) {
    double* w = weights.data() + r * n;
    for (int64_t s = 0; s < num_samples; ++s) {
      double running = 0.0;
      for (int64_t i = 0; i < n; ++i) cumulative[static_cast<size_t>(i)] = running += w[i];
      const double u = uniform_double(random_engine()) * running;
      // First category whose cumulative weight exceeds u, skipping zero-weight ones.
      int64_t pick = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
      pick = std::min(pick, n - 1);
      while (w[pick] == 0.0 && pick > 0) --pick;
      dst[r * num_samples + s] = pick;
      if (!replacement) w[pick] = 0.0;
    }
  }
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
