// aten::_upsample_bilinear2d_aa and aten::_upsample_bicubic2d_aa (no C shim: served by the proxy
// executor): F.interpolate(..., mode='bilinear' | 'bicubic', antialias=True), the PIL-style resize
// vision preprocessors and SigLIP2/Idefics-style position-embedding resizes use. Separable: each output
// index i of a dim (input n, output m) averages the inputs within `support` of its centre
// c = scale * (i + 0.5), weighted by the filter at (j - c + 0.5) / max(scale, 1) and normalised to sum
// 1; scale is (n - 1) / (m - 1) with align_corners, else 1 / scales_* where given, else n / m;
// support is half the filter's width (2 bilinear: the triangle 1 - |x|; 4 bicubic: Keys' cubic with
// a = -0.5), times scale when downsampling. Widths first, then heights. self [N, C, H, W] (any
// strides), float32/64, bfloat16, float16; a new contiguous [N, C, out_h, out_w] of self's dtype,
// computed in double and rounded once.
#include <algorithm>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

double bilinear_filter(double x) {
  x = std::abs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

double bicubic_filter(double x) {
  constexpr double a = -0.5;
  x = std::abs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
  return 0.0;
}

struct Taps {
  std::vector<int64_t> first;          // per output index: the first input index
  std::vector<std::vector<double>> w;  // per output index: the normalised weights from `first` on
};

Taps taps_of(int64_t in, int64_t out, bool align_corners, double given_scale, bool bicubic) {
  double scale;
  if (align_corners) scale = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  else if (given_scale > 0.0) scale = 1.0 / given_scale;
  else scale = static_cast<double>(in) / static_cast<double>(out);
  const double half = bicubic ? 2.0 : 1.0;
  const double support = scale >= 1.0 ? half * scale : half;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  Taps t;
  for (int64_t i = 0; i < out; ++i) {
    const double center = scale * (static_cast<double>(i) + 0.5);
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    std::vector<double> w;
    double total = 0.0;
    for (int64_t j = lo; j < hi; ++j) {
      const double x = (static_cast<double>(j) - center + 0.5) * invscale;
      w.push_back(bicubic ? bicubic_filter(x) : bilinear_filter(x));
      total += w.back();
    }
    if (total != 0.0)
      for (double& v : w) v /= total;
    t.first.push_back(lo);
    t.w.push_back(std::move(w));
  }
  return t;
}

}  // namespace

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_upsample_aa(AtenTensorHandle self, const std::vector<int64_t>& output_size, bool align_corners,
                                 double scale_h, double scale_w, bool bicubic) {
  const char* op = bicubic ? "_upsample_bicubic2d_aa" : "_upsample_bilinear2d_aa";
  const Tensor& in = cpu_tensor(self, "self");
  SHIMGEN_REQUIRE(in.sizes.size() == 4,
                  std::string(op) + ": expected a 4-D input [N, C, H, W], got " + shape_str(in.sizes));
  SHIMGEN_REQUIRE(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0,
                  std::string(op) + ": output_size must hold two positive sizes");
  const int64_t N = in.sizes[0], C = in.sizes[1], H = in.sizes[2], W = in.sizes[3];
  SHIMGEN_REQUIRE(H > 0 && W > 0, std::string(op) + ": input and output sizes should be greater than 0, got input " +
                                      shape_str(in.sizes));
  const int64_t oh = output_size[0], ow = output_size[1];
  dispatch_floating(in.dtype, op, [&](auto) {});  // a dtype refused before anything is made
  const Taps th = taps_of(H, oh, align_corners, scale_h, bicubic), tw = taps_of(W, ow, align_corners, scale_w, bicubic);
  const std::vector<int64_t> sizes{N, C, oh, ow};
  // torch's meta function: the input's suggested memory format (a channels-last input, as inductor
  // lays out a conv stem's output, gives a channels-last result; the generated code checks the strides).
  auto out = empty_tensor(
      sizes,
      channels_last_strides(in.sizes, in.strides) ? channels_last_strides_of(sizes) : contiguous_strides_of(sizes),
      in.dtype, kCPU, -1);
  dispatch_floating(in.dtype, op, [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* dst = reinterpret_cast<T*>(out->data());
    std::vector<double> rows(static_cast<size_t>(H * ow));  // one plane resized along W
    for (int64_t p = 0; p < N * C; ++p) {
      const T* plane = src + (p / C) * in.strides[0] + (p % C) * in.strides[1];
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0.0;
          const std::vector<double>& w = tw.w[static_cast<size_t>(x)];
          for (size_t k = 0; k < w.size(); ++k)
            acc += w[k] * static_cast<double>(value_of(
                              plane[y * in.strides[2] +
                                    (tw.first[static_cast<size_t>(x)] + static_cast<int64_t>(k)) * in.strides[3]]));
          rows[static_cast<size_t>(y * ow + x)] = acc;
        }
      T* o = dst + (p / C) * out->strides[0] + (p % C) * out->strides[1];
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0.0;
          const std::vector<double>& w = th.w[static_cast<size_t>(y)];
          for (size_t k = 0; k < w.size(); ++k)
            acc +=
                w[k] * rows[static_cast<size_t>((th.first[static_cast<size_t>(y)] + static_cast<int64_t>(k)) * ow + x)];
          T& cell = o[y * out->strides[2] + x * out->strides[3]];
          if constexpr (std::is_same_v<T, double>) cell = acc;
          else if constexpr (std::is_same_v<T, float>) cell = static_cast<float>(acc);
          else cell = T(static_cast<float>(acc));
        }
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
