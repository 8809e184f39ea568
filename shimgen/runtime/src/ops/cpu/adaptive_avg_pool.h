// What the adaptive average pools share (adaptive_avg_pool2d.cpp, adaptive_avg_pool3d.cpp): inductor
// generates adaptive average pooling itself while the windows are small and falls back to these
// when they are large (classifier heads such as VGG's AdaptiveAvgPool2d((7, 7)) on large maps).
// Output cell i of a spatial dim of input size n and output size m averages [floor(i n / m),
// ceil((i + 1) n / m)). self [N, C, *spatial] or [C, *spatial], any strides; a new tensor of self's
// dtype, channels-last when a 4-d self is (PyTorch's suggest_memory_format; its 3-d kernel and meta
// return contiguous), else contiguous; sums in double (float for the 16-bit floats), rounded once.
#pragma once

#include <string>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu {

inline AtenTensorHandle adaptive_avg_pool(const Tensor& in, const int64_t* output_size, int64_t output_size_len,
                                          size_t spatial, const char* op) {
  const size_t rank = in.sizes.size();
  SHIMGEN_REQUIRE(rank == spatial + 1 || rank == spatial + 2, std::string(op) + ": Expected " +
                                                                  std::to_string(spatial + 1) + "D or " +
                                                                  std::to_string(spatial + 2) + "D tensor, but got " +
                                                                  shape_str(in.sizes));
  SHIMGEN_REQUIRE(output_size != nullptr && output_size_len == static_cast<int64_t>(spatial),
                  std::string(op) + ": output_size must be " + std::to_string(spatial));
  for (size_t d = rank - spatial; d < rank; ++d)
    SHIMGEN_REQUIRE(in.sizes[d] > 0, std::string(op) + ": Expected input to have non-zero size for non-batch "
                                                       "dimensions, but input has sizes " + shape_str(in.sizes));
  for (size_t i = 0; i < spatial; ++i)
    SHIMGEN_REQUIRE(output_size[i] >= 0, std::string(op) + ": output_size must be non-negative");
  const size_t lead = rank - spatial;
  std::vector<int64_t> sizes(in.sizes.begin(), in.sizes.begin() + static_cast<std::ptrdiff_t>(lead));
  for (size_t i = 0; i < spatial; ++i) sizes.push_back(output_size[i]);
  std::vector<int64_t> strides = contiguous_strides_of(sizes);
  if (spatial == 2 && rank == 4 && channels_last_strides(in.sizes, in.strides)) {  // C innermost, N outermost
    int64_t s = 1;
    strides[1] = s;
    s *= std::max<int64_t>(sizes[1], 1);
    for (size_t d = rank; d-- > 2;) {
      strides[d] = s;
      s *= std::max<int64_t>(sizes[d], 1);
    }
    strides[0] = s;
  }
  auto out = empty_tensor(sizes, strides, in.dtype, kCPU, -1);
  int64_t planes = 1, cells = 1;
  for (size_t d = 0; d < lead; ++d) planes *= in.sizes[d];
  for (size_t i = 0; i < spatial; ++i) cells *= output_size[i];
  dispatch_floating(in.dtype, op, [&](auto t) {
    using T = decltype(t);
    using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* dst = reinterpret_cast<T*>(out->data());
    std::vector<int64_t> lo(spatial), hi(spatial), at(spatial);
    for (int64_t p = 0; p < planes; ++p) {
      int64_t in_base = 0, out_base = 0, rest = p;
      for (size_t d = lead; d-- > 0;) {
        const int64_t i = rest % in.sizes[d];
        rest /= in.sizes[d];
        in_base += i * in.strides[d];
        out_base += i * strides[d];
      }
      for (int64_t c = 0; c < cells; ++c) {
        int64_t r = c, out_at = out_base, count = 1;
        for (size_t k = spatial; k-- > 0;) {
          const int64_t i = r % output_size[k], n = in.sizes[lead + k], m = output_size[k];
          r /= output_size[k];
          lo[k] = (i * n) / m;
          hi[k] = ((i + 1) * n + m - 1) / m;
          count *= hi[k] - lo[k];
          out_at += i * strides[lead + k];
        }
        A acc = 0;
        at = lo;
        while (true) {  // every input position of the window, last dim fastest
          int64_t off = in_base;
          for (size_t k = 0; k < spatial; ++k) off += at[k] * in.strides[lead + k];
          acc += static_cast<A>(value_of(src[off]));
          size_t k = spatial;
          while (k > 0 && ++at[k - 1] == hi[k - 1]) {
            at[k - 1] = lo[k - 1];
            --k;
          }
          if (k == 0) break;
        }
        const A v = acc / static_cast<A>(count);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) dst[out_at] = static_cast<T>(v);
        else dst[out_at] = T(static_cast<float>(v));
      }
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::cpu
