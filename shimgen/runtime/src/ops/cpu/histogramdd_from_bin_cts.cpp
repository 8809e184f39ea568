// aoti_torch_cpu__histogramdd_from_bin_cts: torch.histogramdd(self, bins=[...], range=, weight=,
// density=)'s counts (the edges come from the proxy target aten::_histogramdd_bin_edges,
// histogramdd_bin_edges.cpp; both from histogramdd.h). A sample counts (1, or its weight) in the cell
// each coordinate's linear position picks, corrected against that dim's edges (torch's local
// search), the last bin of each dim closed on the right; a sample with any coordinate outside its
// range, or NaN, is skipped. density divides by the total and by each cell's volume. A new
// contiguous [bins[0], ..., bins[D - 1]] of self's dtype; weight (self's shape without the last dim)
// of self's dtype.
#include "histogramdd.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void count(const Tensor& in, const HistogramddShape& s, const int64_t* bins,
                              const std::vector<std::vector<T>>& edges, const Tensor* weight, bool density,
                              const Tensor& hist) {
  auto* h = reinterpret_cast<T*>(hist.data());
  std::fill(h, h + hist.numel(), T(0));
  const auto* x = reinterpret_cast<const T*>(in.data());
  const std::vector<int64_t> at = histogramdd_offsets(in);
  std::vector<int64_t> weight_at;
  if (weight != nullptr) for_each_element(*weight, [&](int64_t o) { weight_at.push_back(o); });
  const T* w = weight != nullptr ? reinterpret_cast<const T*>(weight->data()) : nullptr;
  for (int64_t n = 0; n < s.samples; ++n) {
    int64_t cell = 0;
    bool inside = true;
    for (int64_t d = 0; d < s.dims && inside; ++d) {
      const std::vector<T>& e = edges[static_cast<size_t>(d)];
      const int64_t nb = bins[d];
      const T v = x[at[static_cast<size_t>(n * s.dims + d)]];
      if (!(v >= e.front() && v <= e.back())) {
        inside = false;
        break;
      }
      int64_t pos = static_cast<int64_t>((v - e.front()) * static_cast<T>(nb) / (e.back() - e.front()));
      const int64_t first = std::max<int64_t>(0, pos - 1), last = std::min<int64_t>(pos + 2, nb + 1);
      pos = (std::upper_bound(e.begin() + first, e.begin() + last, v) - e.begin()) - 1;
      if (pos == nb) pos -= 1;
      cell = cell * nb + pos;
    }
    if (inside) h[cell] += w != nullptr ? w[weight_at[static_cast<size_t>(n)]] : T(1);
  }
  if (!density) return;
  T total = 0;
  for (int64_t i = 0; i < hist.numel(); ++i) total += h[i];
  for (int64_t i = 0; i < hist.numel(); ++i) h[i] /= total;
  int64_t inner = hist.numel();
  for (int64_t d = 0; d < s.dims; ++d) {  // divide by the width of the cell's bin in dim d
    const int64_t nb = bins[d];
    inner /= nb;
    const std::vector<T>& e = edges[static_cast<size_t>(d)];
    for (int64_t i = 0; i < hist.numel(); ++i) {
      const int64_t b = (i / inner) % nb;
      h[i] /= e[static_cast<size_t>(b + 1)] - e[static_cast<size_t>(b)];
    }
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__histogramdd_from_bin_cts(
    AtenTensorHandle self, const int64_t* bins, int64_t bins_len_, const double** range, int64_t range_len_,
    AtenTensorHandle* weight, int32_t density, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const char* op = "torch.histogramdd";
    const HistogramddShape s = histogramdd_shape(in, bins, bins_len_, op);
    const Tensor* w = weight != nullptr && *weight != nullptr ? &cpu_tensor(*weight, "weight") : nullptr;
    if (w != nullptr) {
      const std::vector<int64_t> want(in.sizes.begin(), in.sizes.end() - 1);
      SHIMGEN_REQUIRE(w->dtype == in.dtype && w->sizes == want,
                      std::string(op) +
                          ": if weight tensor is provided it should have the same shape as the input "
                          "tensor excluding its innermost dimension, and the same dtype");
    }
    const double* r = range != nullptr ? *range : nullptr;
    const std::vector<int64_t> sizes(bins, bins + bins_len_);
    auto hist = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
    if (in.dtype == kFloat32)
      count<float>(in, s, bins, histogramdd_edges<float>(in, s, bins, r, range_len_, op), w, density != 0, *hist);
    else count<double>(in, s, bins, histogramdd_edges<double>(in, s, bins, r, range_len_, op), w, density != 0, *hist);
    *ret0 = wrap(std::move(hist));
  });
}
