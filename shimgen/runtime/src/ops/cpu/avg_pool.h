// What the average pools share (avg_pool2d.cpp, avg_pool3d.cpp): inductor generates average pooling
// itself unless the window holds more than 25 elements and differs from the stride (then it falls
// back to these: Inception-style avg_pool2d(13, 1, 6), avg_pool3d(3, 2, 1)).
//
// PyTorch's rules (ATen's avg_pool2d/avg_pool3d meta functions, Pool.h, the CPU kernels), checked in
// torch's order with torch's messages:
// - kernel_size one value or one per spatial dim; stride empty (= kernel_size), one, or one per dim;
//   padding one or one per dim; each fits in an int; divisor_override (nullable) not 0.
// - self [N, C, *spatial] or [C, *spatial], any strides. Output size per dim:
//   floor((in + 2 pad - k + (ceil_mode ? stride - 1 : 0)) / stride) + 1, less one when ceil_mode would
//   start the last window at or past in + pad (it must start inside the input or its left padding);
//   pad <= k / 2, stride > 0, kernel > 0, every output size >= 1; 3-d also needs in >= k per dim.
// - Output cell o along a dim averages [o s - pad, o s - pad + k) clipped to the input: the sum of
//   those elements (last dim fastest, as torch adds them) divided by divisor_override when given,
//   else by the window clipped to the padded input [-pad, in + pad) (count_include_pad) or by the
//   count of input elements it covers (count_include_pad false).
// - Sums in torch's opmath type (float for float32 and the 16-bit floats, double for float64,
//   int64 for int64: integer division truncates), divided once, rounded once.
// - dtypes as torch's CPU kernels: avg_pool2d float32/64, bfloat16, float16, int64; avg_pool3d
//   float32/64 and int64 (its CPU kernel, avg_pool3d_out_frame, has no 16-bit floats).
// - A new tensor of self's dtype: channels-last when self is 4-d with channels-last strides (2-d
//   pooling, torch's suggest_memory_format), else contiguous (avg_pool3d's meta: always).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu {

namespace avg_pool_detail {

// An int argument as torch's safe_downcast<int, int64_t> reads it.
inline int64_t as_int(int64_t v) {
  SHIMGEN_REQUIRE(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(),
                  "value cannot be converted to type int without overflow");
  return v;
}

// The `spatial` values of an int list argument given as one value or one per dim (or none: `fallback`).
inline std::vector<int64_t> per_dim(const int64_t* values, int64_t len, size_t spatial, bool may_be_empty,
                                    const std::vector<int64_t>& fallback, const std::string& message) {
  const bool ok = len == 1 || len == static_cast<int64_t>(spatial) || (may_be_empty && len == 0);
  SHIMGEN_REQUIRE(ok && (values != nullptr || len == 0), message);
  if (len == 0) return fallback;
  std::vector<int64_t> out(spatial);
  for (size_t i = 0; i < spatial; ++i) out[i] = as_int(values[len == 1 ? 0 : i]);
  return out;
}

// ATen's pooling_output_shape (dilation 1) with its checks.
inline int64_t output_size(int64_t in, int64_t k, int64_t pad, int64_t s, bool ceil_mode) {
  SHIMGEN_REQUIRE(s != 0, "stride should not be zero");
  SHIMGEN_REQUIRE(pad >= 0, "pad must be non-negative, but got pad: " + std::to_string(pad));
  SHIMGEN_REQUIRE(pad <= k / 2, "pad should be at most half of effective kernel size, but got pad=" +
                                    std::to_string(pad) + ", kernel_size=" + std::to_string(k) + " and dilation=1");
  const int64_t num = in + 2 * pad - (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t q = num / s;
  if (num % s != 0 && ((num % s < 0) != (s < 0))) --q;  // div_rtn: rounds toward -infinity
  int64_t out = q + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

inline std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// "kT: 3 kH: 3 kW: 3" / "kH: 3 kW: 3": torch's labels of a per-dim triple or pair.
inline std::string labelled(const char* letter, const std::vector<int64_t>& v) {
  static const char* const dims3[] = {"T", "H", "W"};
  static const char* const dims2[] = {"H", "W"};
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += std::string(i ? " " : "") + letter + (v.size() == 3 ? dims3[i] : dims2[i]) + ": " + std::to_string(v[i]);
  return s;
}

}  // namespace avg_pool_detail

inline AtenTensorHandle avg_pool(const Tensor& in, const int64_t* kernel_size, int64_t kernel_size_len,
                                 const int64_t* stride, int64_t stride_len, const int64_t* padding, int64_t padding_len,
                                 bool ceil_mode, bool count_include_pad, const int64_t* divisor_override,
                                 size_t spatial) {
  using namespace avg_pool_detail;
  const bool is_3d = spatial == 3;
  const std::string op = is_3d ? "avg_pool3d" : "avg_pool2d";
  const std::vector<int64_t> k = per_dim(kernel_size, kernel_size_len, spatial, false, {},
                                         is_3d ? "avg_pool3d: kernel_size must be a single int, or a tuple of three "
                                                 "ints"
                                               : "avg_pool2d: kernel_size must either be a single int, or a tuple of "
                                                 "two ints");
  const std::vector<int64_t> s = per_dim(stride, stride_len, spatial, true, k,
                                         is_3d ? "avg_pool3d: stride must be omitted, a single int, or a tuple of "
                                                 "three ints"
                                               : "avg_pool2d: stride must either be omitted, a single int, or a tuple "
                                                 "of two ints");
  const std::vector<int64_t> pad = per_dim(padding, padding_len, spatial, false, {},
                                           is_3d ? "avg_pool3d: padding must be a single int, or a tuple of three ints"
                                                 : "avg_pool2d: padding must either be a single int, or a tuple of "
                                                   "two ints");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  if (is_3d) {
    SHIMGEN_REQUIRE(rank == 4 || rank == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  } else {  // the 2-d meta reads self.size(-3) before any shape check
    SHIMGEN_REQUIRE(rank > 0, "Dimension specified as -3 but tensor has no dimensions");
    SHIMGEN_REQUIRE(rank >= 3, "Dimension out of range (expected to be in range of [" + std::to_string(-rank) + ", " +
                                   std::to_string(rank - 1) + "], but got -3)");
  }
  SHIMGEN_REQUIRE(divisor_override == nullptr || *divisor_override != 0, "divisor must be not zero");

  const size_t lead = static_cast<size_t>(rank) - spatial;
  const std::vector<int64_t> extent(in.sizes.end() - static_cast<std::ptrdiff_t>(spatial), in.sizes.end());
  std::vector<int64_t> out_extent(spatial);
  for (size_t i = 0; i < spatial; ++i) out_extent[i] = output_size(extent[i], k[i], pad[i], s[i], ceil_mode);

  // pool2d_shape_check / pool3d_shape_check
  bool k_ok = true, s_ok = true;
  for (size_t i = 0; i < spatial; ++i) {
    k_ok = k_ok && k[i] > 0;
    s_ok = s_ok && s[i] > 0;
  }
  SHIMGEN_REQUIRE(k_ok, "kernel size should be greater than zero, but got " + labelled("k", k));
  SHIMGEN_REQUIRE(s_ok, "stride should be greater than zero, but got " + labelled("d", s));
  const int64_t planes_dim = in.sizes[lead - 1];  // C
  const bool channels_last = !is_3d && rank == 4 && channels_last_strides(in.sizes, in.strides);
  if (is_3d) {
    for (int64_t d = rank == 5 ? 1 : 0; d < rank; ++d)
      SHIMGEN_REQUIRE(in.sizes[static_cast<size_t>(d)] > 0,
                      "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input has a "
                      "shape of " +
                          shape_str(in.sizes) + " and non-batch dimension " +
                          std::to_string(in.sizes[static_cast<size_t>(d)]) + " has length zero!");
    SHIMGEN_REQUIRE(extent[0] >= k[0] && extent[1] >= k[1] && extent[2] >= k[2],
                    "input image (T: " + std::to_string(extent[0]) + " H: " + std::to_string(extent[1]) +
                        " W: " + std::to_string(extent[2]) + ") smaller than kernel size (" + labelled("k", k) + ")");
  } else {
    const bool valid_dims = in.sizes[1] != 0 && in.sizes[2] != 0;
    const bool ok = (rank == 3 && in.sizes[0] != 0 && valid_dims) || (rank == 4 && valid_dims && in.sizes[3] != 0);
    SHIMGEN_REQUIRE(ok, channels_last ? "Expected 4D (batch mode) tensor expected for input with channels_last layout "
                                        "with optional 0 dim batch size for input, but got: " +
                                            shape_str(in.sizes)
                                      : "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                                        "input, but got:" +
                                            shape_str(in.sizes));
  }
  bool out_ok = true;
  for (int64_t o : out_extent) out_ok = out_ok && o >= 1;
  SHIMGEN_REQUIRE(out_ok, "Given input size: (" + std::to_string(planes_dim) + "x" + join(extent, "x") +
                              "). Calculated output size: (" + std::to_string(planes_dim) + "x" +
                              join(out_extent, "x") + "). Output size is too small");

  // The kernels' dtypes (checked where torch's dispatch is: after the shape checks).
  const bool half = in.dtype == kBFloat16 || in.dtype == kFloat16;
  if (!(in.dtype == kFloat32 || in.dtype == kFloat64 || in.dtype == kInt64 || (half && !is_3d)))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("\"") + (is_3d ? "avg_pool3d_out_frame" : "avg_pool2d") +
                                                "\" not implemented for '" + scalar_type_name(in.dtype) + "'");

  std::vector<int64_t> sizes(in.sizes.begin(), in.sizes.begin() + static_cast<std::ptrdiff_t>(lead));
  sizes.insert(sizes.end(), out_extent.begin(), out_extent.end());
  const std::vector<int64_t> strides = channels_last ? channels_last_strides_of(sizes) : contiguous_strides_of(sizes);
  auto out = empty_tensor(sizes, strides, in.dtype, kCPU, -1);
  int64_t planes = 1, cells = 1;
  for (size_t d = 0; d < lead; ++d) planes *= in.sizes[d];
  for (int64_t o : out_extent) cells *= o;
  auto body = [&](auto t) {
    using T = decltype(t);
    // opmath_type<T>: float for float32 and the 16-bit floats (ATen's CPU kernels), double, int64.
    using A = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<std::is_same_v<T, int64_t>, int64_t, float>>;
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* dst = reinterpret_cast<T*>(out->data());
    std::vector<int64_t> lo(spatial), hi(spatial), at(spatial);
    for (int64_t p = 0; p < planes; ++p) {
      int64_t in_base = 0, out_base = 0;
      plane_offsets(in, strides, lead, p, &in_base, &out_base);
      for (int64_t c = 0; c < cells; ++c) {
        int64_t r = c, out_at = out_base, padded = 1, covered = 1;
        bool empty = false;
        for (size_t d = spatial; d-- > 0;) {
          const int64_t o = r % out_extent[d];
          r /= out_extent[d];
          out_at += o * strides[lead + d];
          const int64_t start = o * s[d] - pad[d];
          const int64_t end = std::min(start + k[d], extent[d] + pad[d]);
          padded *= end - start;
          lo[d] = std::max<int64_t>(start, 0);
          hi[d] = std::min(end, extent[d]);
          empty = empty || lo[d] >= hi[d];
          covered *= std::max<int64_t>(hi[d] - lo[d], 0);
        }
        if (empty) {  // a window wholly in the padding (torch writes 0)
          dst[out_at] = T(0);
          continue;
        }
        const int64_t divide = divisor_override != nullptr ? *divisor_override : count_include_pad ? padded : covered;
        A acc = 0;
        at = lo;
        while (true) {  // every input position of the window, last dim fastest
          int64_t off = in_base;
          for (size_t d = 0; d < spatial; ++d) off += at[d] * in.strides[lead + d];
          if constexpr (std::is_same_v<A, int64_t>)  // wraps as torch's int64 sum does
            acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(src[off]));
          else acc += static_cast<A>(value_of(src[off]));
          size_t d = spatial;
          while (d > 0 && ++at[d - 1] == hi[d - 1]) {
            at[d - 1] = lo[d - 1];
            --d;
          }
          if (d == 0) break;
        }
        if constexpr (std::is_same_v<A, int64_t>)
          dst[out_at] = divide == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(acc)) : acc / divide;
        else dst[out_at] = T(acc / static_cast<A>(divide));
      }
    }
  };
  switch (in.dtype) {
    case kFloat32: body(float{}); break;
    case kFloat64: body(double{}); break;
    case kBFloat16: body(BFloat16{}); break;
    case kFloat16: body(Half{}); break;
    default: body(int64_t{}); break;
  }
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::cpu
