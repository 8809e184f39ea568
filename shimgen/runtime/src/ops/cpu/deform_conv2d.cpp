// torchvision::deform_conv2d (a custom op with no C shim: AOTInductor hands it to the proxy executor;
// DCN v1 / v2 layers of detection and segmentation backbones). A grouped 2-d convolution whose kernel
// tap (kh, kw) at output (oh, ow) reads the input not at (oh * stride - pad + kh * dilation, ...) but
// there plus a learned offset (dy, dx) from `offset` [B, 2 * offset_groups * KH * KW, OH, OW] (pairs
// (dy, dx) per tap, per offset group of input channels), through a bilinear sample that is zero
// outside the map, times the tap's modulation from `mask` [B, offset_groups * KH * KW, OH, OW] when
// use_mask (DCNv2). out[b, oc, oh, ow] = bias[oc] + sum of weight[oc, ic, kh, kw] * sample over the
// group's input channels and taps. The samples are computed in the input's type as torchvision's
// im2col does, their weighted sum in double. A new contiguous [B, OC, OH, OW]; float32 and float64.
#include <cmath>

#include "../proxy_ops.h"
#include "roi_common.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// torchvision's deformable bilinear sample: zero when (y, x) is a pixel or more outside the map (or NaN,
// which torchvision's kernels turn into an index), and each of the four neighbours outside counts as zero.
template <class T> T deform_bilinear(const T* plane, int64_t height, int64_t width, T y, T x) {
  if (!(y > -1 && y < static_cast<T>(height) && x > -1 && x < static_cast<T>(width))) return 0;  // NaN too
  const int64_t y_low = static_cast<int64_t>(std::floor(y)), x_low = static_cast<int64_t>(std::floor(x));
  const int64_t y_high = y_low + 1, x_high = x_low + 1;
  const T ly = y - static_cast<T>(y_low), lx = x - static_cast<T>(x_low);
  const T hy = 1 - ly, hx = 1 - lx;
  const T v1 = y_low >= 0 && x_low >= 0 ? plane[y_low * width + x_low] : T{0};
  const T v2 = y_low >= 0 && x_high <= width - 1 ? plane[y_low * width + x_high] : T{0};
  const T v3 = y_high <= height - 1 && x_low >= 0 ? plane[y_high * width + x_low] : T{0};
  const T v4 = y_high <= height - 1 && x_high <= width - 1 ? plane[y_high * width + x_high] : T{0};
  return hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4;
}

}  // namespace

AtenTensorHandle cpu_deform_conv2d(AtenTensorHandle input_h, AtenTensorHandle weight_h, AtenTensorHandle offset_h,
                                   AtenTensorHandle mask_h, AtenTensorHandle bias_h, const DeformConvParams& p) {
  HostView input((cpu_tensor(input_h, "input"), input_h), true),
      weight((cpu_tensor(weight_h, "weight"), weight_h), true);
  HostView offset((cpu_tensor(offset_h, "offset"), offset_h), true), mask((cpu_tensor(mask_h, "mask"), mask_h), true);
  HostView bias((cpu_tensor(bias_h, "bias"), bias_h), true);
  SHIMGEN_REQUIRE(input->sizes.size() == 4 && weight->sizes.size() == 4 && offset->sizes.size() == 4,
                  "deform_conv2d: input, weight and offset must be 4-d");
  SHIMGEN_REQUIRE(p.stride_h > 0 && p.stride_w > 0, "deform_conv2d: strides must be positive");
  SHIMGEN_REQUIRE(p.pad_h >= 0 && p.pad_w >= 0, "deform_conv2d: padding must be non-negative");
  SHIMGEN_REQUIRE(p.dilation_h > 0 && p.dilation_w > 0, "deform_conv2d: dilations must be positive");
  SHIMGEN_REQUIRE(p.groups > 0 && p.offset_groups > 0, "deform_conv2d: groups must be positive");
  for (const Tensor* t : {&*weight, &*offset, &*mask, &*bias})
    SHIMGEN_REQUIRE(t->dtype == input->dtype, "deform_conv2d: input, weight, offset, mask and bias must share a dtype");
  const int64_t batch = input->sizes[0], in_c = input->sizes[1], height = input->sizes[2], width = input->sizes[3];
  const int64_t out_c = weight->sizes[0], group_in = weight->sizes[1], kh = weight->sizes[2], kw = weight->sizes[3];
  const int64_t taps = kh * kw;
  SHIMGEN_REQUIRE(group_in * p.groups == in_c,
                  "Input channels (" + std::to_string(in_c) + ") must equal weight.size(1) * groups");
  SHIMGEN_REQUIRE(out_c % p.groups == 0, "deform_conv2d: output channels must be divisible by groups");
  SHIMGEN_REQUIRE(in_c % p.offset_groups == 0, "input.size(1) must be divisible by offset_groups");
  const int64_t out_h = (height + 2 * p.pad_h - (p.dilation_h * (kh - 1) + 1)) / p.stride_h + 1;
  const int64_t out_w = (width + 2 * p.pad_w - (p.dilation_w * (kw - 1) + 1)) / p.stride_w + 1;
  SHIMGEN_REQUIRE(out_h > 0 && out_w > 0, "Calculated output size too small - out_h: " + std::to_string(out_h) +
                                              " out_w: " + std::to_string(out_w));
  const std::vector<int64_t> offset_shape{batch, 2 * p.offset_groups * taps, out_h, out_w};
  SHIMGEN_REQUIRE(offset->sizes == offset_shape,
                  "offset must be " + shape_str(offset_shape) + ", got " + shape_str(offset->sizes));
  if (p.use_mask) {
    const std::vector<int64_t> mask_shape{batch, p.offset_groups * taps, out_h, out_w};
    SHIMGEN_REQUIRE(mask->sizes == mask_shape,
                    "mask must be " + shape_str(mask_shape) + ", got " + shape_str(mask->sizes));
  }
  SHIMGEN_REQUIRE(bias->numel() == out_c, "deform_conv2d: bias must have one element per output channel");
  auto out = roi::zeros({batch, out_c, out_h, out_w}, input->dtype);
  roi::dispatch_roi(input->dtype, p.rounding, "deform_conv2d", [&](auto zero) {
    using T = decltype(zero);
    const T* x = reinterpret_cast<const T*>(input->data());
    const T* wt = reinterpret_cast<const T*>(weight->data());
    const T* off = reinterpret_cast<const T*>(offset->data());
    const T* mk = reinterpret_cast<const T*>(mask->data());
    const T* bs = reinterpret_cast<const T*>(bias->data());
    T* o = reinterpret_cast<T*>(out->data());
    const int64_t plane = out_h * out_w, per_offset_group = in_c / p.offset_groups, group_out = out_c / p.groups;
    std::vector<T> columns(static_cast<size_t>(in_c * taps * plane));  // one image's samples [C_in, KH, KW, OH, OW]
    std::vector<double> acc(static_cast<size_t>(plane));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < in_c; ++c) {
        const int64_t g = c / per_offset_group;
        const T* image = x + (b * in_c + c) * height * width;
        const T* offsets = off + (b * p.offset_groups + g) * 2 * taps * plane;
        const T* masks = mk + (b * p.offset_groups + g) * taps * plane;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t tap = i * kw + j;
            T* col = columns.data() + (c * taps + tap) * plane;
            for (int64_t oy = 0; oy < out_h; ++oy)
              for (int64_t ox = 0; ox < out_w; ++ox) {
                const int64_t at = oy * out_w + ox;
                const T y =
                    static_cast<T>(oy * p.stride_h - p.pad_h + i * p.dilation_h) + offsets[2 * tap * plane + at];
                const T xx =
                    static_cast<T>(ox * p.stride_w - p.pad_w + j * p.dilation_w) + offsets[(2 * tap + 1) * plane + at];
                const T modulation = p.use_mask ? masks[tap * plane + at] : T{1};
                col[at] = modulation * deform_bilinear(image, height, width, y, xx);
              }
          }
      }
      for (int64_t oc = 0; oc < out_c; ++oc) {
        const int64_t g = oc / group_out;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t k = 0; k < group_in * taps; ++k) {
          const double w = static_cast<double>(wt[oc * group_in * taps + k]);
          const T* col = columns.data() + (g * group_in * taps + k) * plane;
          for (int64_t at = 0; at < plane; ++at) acc[at] += w * static_cast<double>(col[at]);
        }
        T* dst = o + (b * out_c + oc) * plane;
        for (int64_t at = 0; at < plane; ++at) dst[at] = static_cast<T>(acc[at]) + bs[oc];
      }
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
