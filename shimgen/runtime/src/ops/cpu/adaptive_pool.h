// What the adaptive pools share (adaptive_{avg,max}_pool{2,3}d.cpp): inductor generates adaptive
// pooling itself while the windows are small and falls back to these when they are large
// (classifier heads such as VGG's AdaptiveAvgPool2d((7, 7)) on large maps, spatial pyramid pooling).
// Output cell i of a spatial dim of input size n and output size m covers [floor(i n / m),
// ceil((i + 1) n / m)). self [N, C, *spatial] or [C, *spatial], any strides; new outputs of the
// output shape, channels-last when a 4-d self is (PyTorch's suggest_memory_format; its 3-d kernels and
// metas return contiguous), else contiguous.
//   avg: self's dtype, sums in double (float for the 16-bit floats), rounded once.
//   max: values (self's dtype) and int64 indices (the flat position of the maximum within its plane,
//        h * W + w or d * H * W + h * W + w); the first maximum in window order wins, a NaN wins
//        over any number (torch's pooling rule).
// Checks and messages are torch's (AdaptiveAveragePooling*.cpp, AdaptiveMaxPooling*.cpp).
#pragma once

#include <string>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu {

struct AdaptivePool {
  size_t spatial = 0, lead = 0;         // spatial dims; dims before them (N and C, or C)
  std::vector<int64_t> sizes, strides;  // the outputs' shape and layout
};

// The checks of `op` and its outputs' layout. torch's max pools check every dim after the first
// and print "but got: "; its average pools check the spatial dims and print "but got ".
inline AdaptivePool adaptive_pool_layout(const Tensor& in, const int64_t* output_size, int64_t output_size_len,
                                         size_t spatial, const char* op, bool max) {
  const std::string name = std::string(op) + "(): ";
  const size_t rank = in.sizes.size();
  SHIMGEN_REQUIRE(rank == spatial + 1 || rank == spatial + 2,
                  name + "Expected " + std::to_string(spatial + 1) + "D or " + std::to_string(spatial + 2) +
                      "D tensor, but got" + (max ? ": " : " ") + shape_str(in.sizes));
  SHIMGEN_REQUIRE(output_size != nullptr && output_size_len == static_cast<int64_t>(spatial),
                  name + "internal error: output_size.size() must be " + std::to_string(spatial));
  for (size_t d = max ? 1 : rank - spatial; d < rank; ++d)
    SHIMGEN_REQUIRE(in.sizes[d] > 0, name +
                                         "Expected input to have non-zero size for non-batch dimensions, but "
                                         "input has sizes " +
                                         shape_str(in.sizes) + " with dimension " + std::to_string(d) + " being empty");
  AdaptivePool pool;
  pool.spatial = spatial;
  pool.lead = rank - spatial;
  pool.sizes.assign(in.sizes.begin(), in.sizes.begin() + static_cast<std::ptrdiff_t>(pool.lead));
  pool.sizes.insert(pool.sizes.end(), output_size, output_size + spatial);
  for (int64_t s : pool.sizes)
    SHIMGEN_REQUIRE(
        s >= 0, "Trying to create tensor with negative dimension " + std::to_string(s) + ": " + shape_str(pool.sizes));
  pool.strides = contiguous_strides_of(pool.sizes);
  if (spatial == 2 && rank == 4 && channels_last_strides(in.sizes, in.strides)) {  // C innermost, N outermost
    pool.strides = channels_last_strides_of(pool.sizes);
  }
  return pool;
}

// visit(out_at, in_base, lo, hi) for each output cell: its offset in the outputs (elements), its
// plane's offset in self, and its window [lo[k], hi[k]) per spatial dim.
template <class Visit> void for_each_adaptive_window(const Tensor& in, const AdaptivePool& pool, Visit&& visit) {
  const size_t spatial = pool.spatial, lead = pool.lead;
  int64_t planes = 1, cells = 1;
  for (size_t d = 0; d < lead; ++d) planes *= in.sizes[d];
  for (size_t k = 0; k < spatial; ++k) cells *= pool.sizes[lead + k];
  std::vector<int64_t> lo(spatial), hi(spatial);
  for (int64_t p = 0; p < planes; ++p) {
    int64_t in_base = 0, out_base = 0;
    plane_offsets(in, pool.strides, lead, p, &in_base, &out_base);
    for (int64_t c = 0; c < cells; ++c) {
      int64_t r = c, out_at = out_base;
      for (size_t k = spatial; k-- > 0;) {
        const int64_t m = pool.sizes[lead + k], n = in.sizes[lead + k], i = r % m;
        r /= m;
        lo[k] = (i * n) / m;
        hi[k] = ((i + 1) * n + m - 1) / m;
        out_at += i * pool.strides[lead + k];
      }
      visit(out_at, in_base, lo, hi);
    }
  }
}

// each(offset in self, flat position in the plane) for every input position of a window, last dim
// fastest (window order).
template <class Each> void for_each_in_window(const Tensor& in, const AdaptivePool& pool, int64_t in_base,
                                              const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                                              Each&& each) {
  const size_t spatial = pool.spatial, lead = pool.lead;
  std::vector<int64_t> at = lo;
  while (true) {
    int64_t off = in_base, flat = 0;
    for (size_t k = 0; k < spatial; ++k) {
      off += at[k] * in.strides[lead + k];
      flat = flat * in.sizes[lead + k] + at[k];
    }
    each(off, flat);
    size_t k = spatial;
    while (k > 0 && ++at[k - 1] == hi[k - 1]) {
      at[k - 1] = lo[k - 1];
      --k;
    }
    if (k == 0) break;
  }
}

inline AtenTensorHandle adaptive_avg_pool(const Tensor& in, const int64_t* output_size, int64_t output_size_len,
                                          size_t spatial, const char* op) {
  const AdaptivePool pool = adaptive_pool_layout(in, output_size, output_size_len, spatial, op, false);
  auto out = empty_tensor(pool.sizes, pool.strides, in.dtype, kCPU, -1);
  dispatch_floating(in.dtype, op, [&](auto t) {
    using T = decltype(t);
    using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* dst = reinterpret_cast<T*>(out->data());
    for_each_adaptive_window(in, pool, [&](int64_t out_at, int64_t in_base, const auto& lo, const auto& hi) {
      A acc = 0;
      int64_t count = 0;
      for_each_in_window(in, pool, in_base, lo, hi, [&](int64_t off, int64_t) {
        acc += static_cast<A>(value_of(src[off]));
        ++count;
      });
      const A v = acc / static_cast<A>(count);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) dst[out_at] = static_cast<T>(v);
      else dst[out_at] = T(static_cast<float>(v));
    });
  });
  return wrap(std::move(out));
}

inline void adaptive_max_pool(const Tensor& in, const int64_t* output_size, int64_t output_size_len, size_t spatial,
                              const char* op, AtenTensorHandle* values_out, AtenTensorHandle* indices_out) {
  const AdaptivePool pool = adaptive_pool_layout(in, output_size, output_size_len, spatial, op, true);
  auto values = empty_tensor(pool.sizes, pool.strides, in.dtype, kCPU, -1);
  auto indices = empty_tensor(pool.sizes, pool.strides, kInt64, kCPU, -1);
  dispatch_real(in.dtype, op, [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* v = reinterpret_cast<T*>(values->data());
    auto* ix = reinterpret_cast<int64_t*>(indices->data());
    for_each_adaptive_window(in, pool, [&](int64_t out_at, int64_t in_base, const auto& lo, const auto& hi) {
      int64_t best = -1;
      T best_v{};
      for_each_in_window(in, pool, in_base, lo, hi, [&](int64_t off, int64_t flat) {
        const T x = src[off];
        const auto xv = value_of(x);
        bool take = best < 0;
        if constexpr (is_floating_v<T>)
          take = take || (!std::isnan(value_of(best_v)) && (xv > value_of(best_v) || std::isnan(xv)));
        else take = take || xv > value_of(best_v);
        if (take) {
          best = flat;
          best_v = x;
        }
      });
      v[out_at] = best_v;
      ix[out_at] = best;
    });
  });
  *values_out = wrap(std::move(values));
  *indices_out = wrap(std::move(indices));
}

}  // namespace shimgen::rt::cpu
