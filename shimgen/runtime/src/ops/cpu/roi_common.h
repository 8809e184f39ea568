// What torchvision's region ops (roi_align.cpp, roi_pool.cpp, nms.cpp, deform_conv2d.cpp) share: their
// float32/float64 dispatch (torchvision's CPU kernels take no other dtype for these), dense host reads
// of their tensor arguments, the rois' [K, 5] check, and the bilinear sample roi_align and ps_roi_align
// take. Each op computes in the tensors' own type T, as torchvision's kernels do: their bin edges are
// floor / ceil / round of products in T, and a float32 product rounded otherwise lands some edges on
// the other pixel. Nothing here is exported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "host_view.h"

namespace shimgen::rt::cpu::roi {

// Calls f(T{}) for float32 (float) or float64 (double); any other dtype fails Unsupported in words
// naming the op, as torchvision's "roi_pool only supports float and double types".
template <class F> void dispatch_float_double(int32_t dtype, const char* op, F&& f) {
  if (dtype == kFloat32) {
    f(float{});
  } else if (dtype == kFloat64) {
    f(double{});
  } else {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         std::string(op) + " only supports float and double types (got " + scalar_type_name(dtype) + ")");
  }
}

// Arithmetic in a 16-bit float type D (kFloat16 or kBFloat16) as c10::Half and c10::BFloat16 do it: an
// operation between two of them, or one and an integer, is computed in float and rounded to D; with a
// float or a double the result is that type, unrounded. The value is a float already on D's grid, so a
// float32 buffer of D's values reads and writes as Rounded<D>. torchvision's CUDA kernels take float16
// and run a half input's RoI arithmetic in it: bin edges, sample counts and sample points follow that
// rounding (29 / 7 rounded to half is 4.145, and 7 x that rounds to 29.016: ceil gives the next pixel,
// where float32's 29.0 does not).
template <int32_t D> struct Rounded {
  float v;
  Rounded() = default;
  template <class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0> Rounded(A a)
      : v(round(static_cast<float>(a))) {}  // NOLINT: implicit, like c10::Half
  operator float() const { return v; }
  static float round(float f) {
    if constexpr (D == kFloat16) return static_cast<float>(Half(f));
    else return static_cast<float>(BFloat16(f));
  }
};
static_assert(sizeof(Rounded<kFloat16>) == sizeof(float), "Rounded reads a float32 buffer");

// Kept as written: clang-format would split the pasted compound operator ("operator OP## =").
// clang-format off
#define SHIMGEN_ROUNDED_OP(OP)                                                                                         \
  template <int32_t D> Rounded<D> operator OP(Rounded<D> a, Rounded<D> b) { return Rounded<D>(a.v OP b.v); }           \
  template <int32_t D, class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>                                      \
  Rounded<D> operator OP(Rounded<D> a, I b) { return a OP Rounded<D>(b); }                                             \
  template <int32_t D, class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>                                      \
  Rounded<D> operator OP(I a, Rounded<D> b) { return Rounded<D>(a) OP b; }                                             \
  template <int32_t D> float operator OP(Rounded<D> a, float b) { return a.v OP b; }                                   \
  template <int32_t D> float operator OP(float a, Rounded<D> b) { return a OP b.v; }                                   \
  template <int32_t D> double operator OP(Rounded<D> a, double b) { return static_cast<double>(a.v) OP b; }            \
  template <int32_t D> double operator OP(double a, Rounded<D> b) { return a OP static_cast<double>(b.v); }            \
  template <int32_t D> Rounded<D>& operator OP##=(Rounded<D>& a, Rounded<D> b) { return a = a OP b; }
SHIMGEN_ROUNDED_OP(+)
SHIMGEN_ROUNDED_OP(-)
SHIMGEN_ROUNDED_OP(*)
SHIMGEN_ROUNDED_OP(/)
#undef SHIMGEN_ROUNDED_OP
// clang-format on
template <int32_t D> Rounded<D> operator-(Rounded<D> a) { return Rounded<D>(-a.v); }

// dispatch_float_double, except that a float32 tensor is computed as Rounded<rounding> when `rounding`
// is a 16-bit float type: the dtype its arguments were widened from (proxy_executor.cpp's OnHost).
template <class F> void dispatch_roi(int32_t dtype, int32_t rounding, const char* op, F&& f) {
  if (dtype == kFloat32 && rounding == kFloat16) f(Rounded<kFloat16>{});
  else if (dtype == kFloat32 && rounding == kBFloat16) f(Rounded<kBFloat16>{});
  else dispatch_float_double(dtype, op, f);
}

// A 4-d input [N, C, H, W] and rois [K, 5] (batch index, x1, y1, x2, y2) of the input's dtype, both
// read densely (a copy where strided), and positive pooled sizes; the errors are torchvision's words.
struct RoiArgs {
  HostView input, rois;
  int64_t batch = 0, channels = 0, height = 0, width = 0, count = 0;
  RoiArgs(AtenTensorHandle input_handle, AtenTensorHandle rois_handle, int64_t pooled_h, int64_t pooled_w,
          const char* op)
      : input((cpu_tensor(input_handle, "input"), input_handle), true),
        rois((cpu_tensor(rois_handle, "rois"), rois_handle), true) {
    SHIMGEN_REQUIRE(pooled_h > 0 && pooled_w > 0,
                    std::string(op) + ": pooled_height and pooled_width must be positive");
    SHIMGEN_REQUIRE(input->sizes.size() == 4, std::string(op) + ": input must be 4-d [N, C, H, W]");
    SHIMGEN_REQUIRE(rois->sizes.size() == 2 && rois->sizes[1] == 5,
                    std::string(op) + ": Tensor rois should have shape as Tensor[K, 5]");
    SHIMGEN_REQUIRE(input->dtype == rois->dtype, std::string(op) + ": input and rois must have the same dtype");
    batch = input->sizes[0], channels = input->sizes[1], height = input->sizes[2], width = input->sizes[3];
    count = rois->sizes[0];
  }
  template <class T> const T* input_data() const { return reinterpret_cast<const T*>(input->data()); }
  template <class T> const T* rois_data() const { return reinterpret_cast<const T*>(rois->data()); }
  // Each roi's batch index (the float truncated, as torchvision's int conversion), checked in range.
  template <class T> void check_batch_indices() const {
    const T* r = reinterpret_cast<const T*>(rois->data());
    for (int64_t n = 0; n < count; ++n) {
      const T b = r[n * 5];
      SHIMGEN_REQUIRE(b >= 0 && b < static_cast<T>(batch),
                      "roi " + std::to_string(n) + "'s batch index " + std::to_string(static_cast<double>(b)) +
                          " is outside the input's batch of " + std::to_string(batch));
    }
  }
};

// The bilinear sample of roi_align and ps_roi_align at (y, x) of an H x W plane: zero beyond one pixel
// outside the plane, clamped to its edge within it.
// A NaN coordinate samples zero too (torchvision's kernels convert it to an index: undefined).
template <class T> T roi_bilinear(const T* plane, int64_t height, int64_t width, T y, T x) {
  if (!(y >= -1.0 && y <= height && x >= -1.0 && x <= width)) return 0;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const T ly = y - static_cast<T>(y_low), lx = x - static_cast<T>(x_low);
  const T hy = static_cast<T>(1) - ly, hx = static_cast<T>(1) - lx;
  const T w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
  return w1 * plane[y_low * width + x_low] + w2 * plane[y_low * width + x_high] + w3 * plane[y_high * width + x_low] +
         w4 * plane[y_high * width + x_high];
}

// A float rounded or truncated to an index, clamped to +-2^40 first (NaN to 0): a box edge or sample
// count from a wild roi stays a defined integer; every use clips it to the map or bounds it.
template <class T> int64_t to_index(T v) {
  constexpr double kLimit = 1099511627776.0;
  if (!(v == v)) return 0;
  return static_cast<int64_t>(std::max(-kLimit, std::min(kLimit, static_cast<double>(v))));
}

// The most bilinear samples one roi_align bin may average (an adaptive grid follows the roi's size:
// a roi of 1e30 pixels would loop for ever); more is refused, naming the roi.
constexpr int64_t kMaxSamplesPerBin = int64_t{1} << 24;

// A new zero-filled contiguous CPU tensor.
inline std::unique_ptr<Tensor> zeros(const std::vector<int64_t>& sizes, int32_t dtype) {
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), dtype, kCPU, -1);
  if (out->numel() > 0) std::memset(out->data(), 0, static_cast<size_t>(out->numel()) * out->itemsize());
  return out;
}

// The outputs of the position-sensitive pools (ps_roi_align, ps_roi_pool): C / (PH PW) output channels
// (C must be a multiple of PH PW, torchvision's words otherwise), zeroed values and an int32 channel map.
struct PsOutputs {
  int64_t channels_out = 0;
  std::unique_ptr<Tensor> values, channel_map;
  PsOutputs(const RoiArgs& a, int64_t pooled_h, int64_t pooled_w) {
    SHIMGEN_REQUIRE(a.channels % (pooled_h * pooled_w) == 0,
                    "input channels must be a multiple of pooling height * pooling width");
    channels_out = a.channels / (pooled_h * pooled_w);
    values = zeros({a.count, channels_out, pooled_h, pooled_w}, a.input->dtype);
    channel_map = zeros({a.count, channels_out, pooled_h, pooled_w}, kInt32);
  }
  template <class T> T* values_data() const { return reinterpret_cast<T*>(values->data()); }
  int32_t* map_data() const { return reinterpret_cast<int32_t*>(channel_map->data()); }
};

}  // namespace shimgen::rt::cpu::roi
