// aoti_torch_cpu_histogram_bin_ct: torch.histogram(self, bins=n, range=..., weight=..., density=...)
// (calibration and data statistics). self is flattened; the n + 1 edges are linspace(lo, hi) in
// self's dtype (torch's linspace: from the low end for the first half, from the high end for the
// rest), lo/hi the range or else self's min and max (widened by 0.5 each way when equal). An element
// falls in the bin its linear position picks, corrected against the edges themselves (torch's
// local search), the last bin closed on the right; NaN and elements outside [lo, hi] are skipped.
// hist sums 1 (or the element's weight) in self's dtype; density divides by the total times each
// bin's width. float32/float64 (torch's histogram takes floating inputs only; the CPU has no other).
#include <algorithm>
#include <limits>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void histogram(const Tensor& in, int64_t bins, double lo_d, double hi_d, const Tensor* weight,
                                  bool density, const Tensor& hist, const Tensor& edges) {
  auto* e = reinterpret_cast<T*>(edges.data());
  auto* h = reinterpret_cast<T*>(hist.data());
  const T lo = static_cast<T>(lo_d), hi = static_cast<T>(hi_d);
  const T step = (hi - lo) / static_cast<T>(bins);
  const int64_t halfway = (bins + 1) / 2;
  for (int64_t i = 0; i <= bins; ++i)
    e[i] = i < halfway ? lo + step * static_cast<T>(i) : hi - step * static_cast<T>(bins - i);
  std::fill(h, h + bins, T(0));
  const auto* x = reinterpret_cast<const T*>(in.data());
  const T* w = weight != nullptr ? reinterpret_cast<const T*>(weight->data()) : nullptr;
  std::vector<int64_t> weight_at;
  if (weight != nullptr) for_each_element(*weight, [&](int64_t at) { weight_at.push_back(at); });
  size_t k = 0;
  for_each_element(in, [&](int64_t at) {
    const T v = x[at];
    const size_t index = k++;
    if (!(v >= e[0] && v <= e[bins])) return;  // outside the range, or NaN
    int64_t pos = static_cast<int64_t>((v - e[0]) * static_cast<T>(bins) / (e[bins] - e[0]));
    const int64_t first = std::max<int64_t>(0, pos - 1), last = std::min<int64_t>(pos + 2, bins + 1);
    pos = (std::upper_bound(e + first, e + last, v) - e) - 1;
    if (pos == bins) pos -= 1;
    h[pos] += w != nullptr ? w[weight_at[index]] : T(1);
  });
  if (density) {
    T total = 0;
    for (int64_t i = 0; i < bins; ++i) total += h[i];
    for (int64_t i = 0; i < bins; ++i) h[i] /= total * (e[i + 1] - e[i]);
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_histogram_bin_ct(AtenTensorHandle self, int64_t bins,
                                                                           const double** range, int64_t range_len_,
                                                                           AtenTensorHandle* weight, int32_t density,
                                                                           AtenTensorHandle* ret0,
                                                                           AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    SHIMGEN_REQUIRE(bins > 0, "torch.histogram(): bins must be > 0, but got " + std::to_string(bins));
    if (in.dtype != kFloat32 && in.dtype != kFloat64)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "torch.histogram: dtype code " + std::to_string(in.dtype) + " is not float32/float64");
    const Tensor* w = weight != nullptr && *weight != nullptr ? &cpu_tensor(*weight, "weight") : nullptr;
    SHIMGEN_REQUIRE(w == nullptr || (w->dtype == in.dtype && w->sizes == in.sizes),
                    "torch.histogram: weight must have the same dtype and shape as input");
    const bool ranged = range != nullptr && *range != nullptr;
    SHIMGEN_REQUIRE(!ranged || range_len_ == 2,
                    "torch.histogram: range should have 2 elements, but got " + std::to_string(range_len_));
    double lo = 0.0, hi = 0.0;
    if (ranged) {
      lo = (*range)[0];
      hi = (*range)[1];
    } else if (in.numel() > 0) {
      lo = std::numeric_limits<double>::infinity();
      hi = -lo;
      dispatch_floating(in.dtype, "histogram", [&](auto t) {
        using T = decltype(t);
        const auto* x = reinterpret_cast<const T*>(in.data());
        for_each_element(in, [&](int64_t at) {
          lo = std::min(lo, static_cast<double>(x[at]));
          hi = std::max(hi, static_cast<double>(x[at]));
        });
      });
    }
    SHIMGEN_REQUIRE(std::isfinite(lo) && std::isfinite(hi),
                    "torch.histogram: range of [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is not finite");
    SHIMGEN_REQUIRE(lo <= hi, "torch.histogram: min should not exceed max, but got min " + std::to_string(lo) +
                                  " max " + std::to_string(hi));
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    auto hist = empty_tensor({bins}, {1}, in.dtype, kCPU, -1);
    auto edges = empty_tensor({bins + 1}, {1}, in.dtype, kCPU, -1);
    if (in.dtype == kFloat32) histogram<float>(in, bins, lo, hi, w, density != 0, *hist, *edges);
    else histogram<double>(in, bins, lo, hi, w, density != 0, *hist, *edges);
    *ret0 = wrap(std::move(hist));
    *ret1 = wrap(std::move(edges));
  });
}
