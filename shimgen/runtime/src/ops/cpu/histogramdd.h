// What torch.histogramdd's two halves share (histogramdd_bin_edges.cpp, the proxy's
// aten::_histogramdd_bin_edges; histogramdd_from_bin_cts.cpp, the C shim): self [..., D] is read as N
// samples of D coordinates; dim d's bins[d] + 1 edges are linspace(lo, hi) in self's dtype (torch's
// linspace: from lo for the first half, from hi for the rest), lo/hi from range[2d], range[2d + 1]
// when given, else that coordinate's min and max over the samples (widened by 0.5 each way when
// equal, [-0.5, 0.5] when there are none). float32 / float64 (torch's CPU histograms).
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu {

struct HistogramddShape { int64_t samples = 0, dims = 0; };

inline HistogramddShape histogramdd_shape(const Tensor& in, const int64_t* bins, int64_t bins_len, const char* op) {
  SHIMGEN_REQUIRE(!in.sizes.empty(), std::string(op) + ": input tensor should have at least 1 dimension");
  if (in.dtype != kFloat32 && in.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         std::string(op) + ": dtype code " + std::to_string(in.dtype) + " is not float32/float64");
  HistogramddShape s;
  s.dims = in.sizes.back();
  s.samples = s.dims > 0 ? in.numel() / s.dims : 0;
  SHIMGEN_REQUIRE(bins != nullptr && bins_len == s.dims,
                  std::string(op) + ": expected " + std::to_string(s.dims) +
                      " sequences of bin edges for each of the " + std::to_string(s.dims) +
                      " dimensions of the input, but got " + std::to_string(bins_len));
  for (int64_t d = 0; d < s.dims; ++d)
    SHIMGEN_REQUIRE(bins[d] > 0, std::string(op) + ": bins must be > 0, but got " + std::to_string(bins[d]) +
                                     " for dimension " + std::to_string(d));
  return s;
}

// Element offsets of self in row-major order (sample n, coordinate d at [n * dims + d]).
inline std::vector<int64_t> histogramdd_offsets(const Tensor& in) {
  std::vector<int64_t> at;
  at.reserve(static_cast<size_t>(in.numel()));
  for_each_element(in, [&](int64_t o) { at.push_back(o); });
  return at;
}

// The edges of every dim, as doubles holding values of T (so the shim and the proxy agree exactly).
template <class T> std::vector<std::vector<T>> histogramdd_edges(const Tensor& in, const HistogramddShape& s,
                                                                 const int64_t* bins, const double* range,
                                                                 int64_t range_len, const char* op) {
  SHIMGEN_REQUIRE(range == nullptr || range_len == 2 * s.dims,
                  std::string(op) + ": expected " + std::to_string(2 * s.dims) + " values for range, but got " +
                      std::to_string(range_len));
  const auto* x = reinterpret_cast<const T*>(in.data());
  const std::vector<int64_t> at = histogramdd_offsets(in);
  std::vector<std::vector<T>> edges(static_cast<size_t>(s.dims));
  for (int64_t d = 0; d < s.dims; ++d) {
    double lo, hi;
    if (range != nullptr) {
      lo = range[2 * d];
      hi = range[2 * d + 1];
    } else if (s.samples == 0) {
      lo = hi = 0.0;
    } else {
      lo = std::numeric_limits<double>::infinity();
      hi = -lo;
      for (int64_t n = 0; n < s.samples; ++n) {
        const double v = static_cast<double>(x[at[static_cast<size_t>(n * s.dims + d)]]);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    SHIMGEN_REQUIRE(std::isfinite(lo) && std::isfinite(hi), std::string(op) + ": range of [" + std::to_string(lo) +
                                                                ", " + std::to_string(hi) + "] is not finite");
    SHIMGEN_REQUIRE(lo <= hi, std::string(op) + ": min should not exceed max, but got min " + std::to_string(lo) +
                                  " max " + std::to_string(hi));
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    const int64_t n = bins[d];
    const T l = static_cast<T>(lo), h = static_cast<T>(hi), step = (h - l) / static_cast<T>(n);
    const int64_t halfway = (n + 1) / 2;
    std::vector<T>& e = edges[static_cast<size_t>(d)];
    for (int64_t i = 0; i <= n; ++i)
      e.push_back(i < halfway ? l + step * static_cast<T>(i) : h - step * static_cast<T>(n - i));
  }
  return edges;
}

}  // namespace shimgen::rt::cpu
