// aoti_torch_cpu__scaled_mm_out: torch._scaled_mm on the CPU (float8 linears: torchao's float8
// inference, fp8-quantised checkpoints) into out. As torch's CPU kernel does it (the emulated path
// of aten/native/Blas.cpp; what every CPU without AMX runs): both float8 operands widened to
// float32 and multiplied by their scales (a float32 scalar, or any shape that broadcasts to the
// operand: per row of self [M, 1], per column of mat2 [1, N]), the product summed in float32, the
// bias (bfloat16/float16/float32 [N] or broadcastable) added, then rounded once to out's dtype:
// float32, bfloat16, float16, or a float8 format. For a float8_e4m3fn or float8_e5m2 out named by
// out_dtype, the float32 result is first multiplied by 1 / scale_result (a float32 scalar: torch
// multiplies by the float reciprocal, it does not divide); the fnuz outputs, and an out_dtype left
// out, ignore scale_result as torch 2.13 does (for the latter its code reads the empty optional:
// measured). The float8 rounding is torch's float-to-float8 conversion (c10's, what Tensor.to
// does): to nearest, ties to even; e4m3fn saturates (beyond 448, infinities included, to ±448),
// e5m2 overflows to ±infinity, the fnuz forms to their NaN (0x80); NaN stays NaN (its sign kept
// where the format has one). self and mat2: float8_e4m3fn, float8_e5m2 or their fnuz forms. torch
// on a CPU with AMX (int8) sends tensor-wise scales of two same-format operands through oneDNN
// instead, which makes e4m3fn overflow NaN rather than ±448: not followed here.
#include <algorithm>
#include <array>
#include <cmath>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// A float8 format: `exp_bits` exponent bits of `bias`, the rest mantissa; the fn formats have no
// infinity and one NaN pattern per sign (all ones), the fnuz ones no negative zero (0x80 is their
// only NaN), e5m2 is IEEE-like (infinities and NaNs in the top exponent).
struct Float8 {
  int exp_bits, bias;
  bool fnuz, ieee;
  std::array<float, 256> values{};  // every bit pattern decoded (NaN keeps the pattern's sign, as torch's)
  double max_finite = 0;            // the largest finite value
  uint8_t max_bits = 0;             // its pattern
};

Float8 make_float8(int exp_bits, int bias, bool fnuz, bool ieee) {
  Float8 f{exp_bits, bias, fnuz, ieee};
  const int man_bits = 7 - exp_bits;
  const int top = (1 << exp_bits) - 1;
  for (int v = 0; v < 256; ++v) {
    const bool negative = (v & 0x80) != 0;
    const int e = (v >> man_bits) & top, m = v & ((1 << man_bits) - 1);
    float x;
    if (fnuz && v == 0x80) {
      x = NAN;
    } else if (ieee && e == top) {
      x = m == 0 ? INFINITY : NAN;
    } else if (!ieee && !fnuz && e == top && m == (1 << man_bits) - 1) {
      x = NAN;
    } else if (e == 0) {
      x = std::ldexp(static_cast<float>(m), 1 - bias - man_bits);
    } else {
      x = std::ldexp(static_cast<float>(m + (1 << man_bits)), e - bias - man_bits);
    }
    f.values[v] = negative && !(fnuz && v == 0x80) ? -x : x;
    if (!negative && std::isfinite(x) && x > f.max_finite) {
      f.max_finite = x;
      f.max_bits = static_cast<uint8_t>(v);
    }
  }
  return f;
}

const Float8& float8_format(int32_t dtype, const char* what) {
  static const Float8 e4m3fn = make_float8(4, 7, false, false);
  static const Float8 e5m2 = make_float8(5, 15, false, true);
  static const Float8 e4m3fnuz = make_float8(4, 8, true, false);
  static const Float8 e5m2fnuz = make_float8(5, 16, true, false);
  switch (dtype) {
    case kFloat8_e4m3fn: return e4m3fn;
    case kFloat8_e5m2: return e5m2;
    case kFloat8_e4m3fnuz: return e4m3fnuz;
    case kFloat8_e5m2fnuz: return e5m2fnuz;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
           std::string("_scaled_mm: ") + what + " must be a float8 tensor, got " + scalar_type_name(dtype));
  }
}

bool is_float8(int32_t dtype) {
  return dtype == kFloat8_e4m3fn || dtype == kFloat8_e5m2 || dtype == kFloat8_e4m3fnuz || dtype == kFloat8_e5m2fnuz;
}

// A float32 rounded to a float8 format as torch's conversion rounds (see the top of the file): the
// value's quantum is that of its binade (at least the subnormals'), round to nearest even on that
// grid, then what lies beyond the largest finite value overflows by the format's rule.
uint8_t to_float8(float x, const Float8& f) {
  const int man_bits = 7 - f.exp_bits;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x)) return f.fnuz ? 0x80 : static_cast<uint8_t>(sign | 0x7f);
  auto overflow = [&]() -> uint8_t {
    if (f.fnuz) return 0x80;
    if (f.ieee) return static_cast<uint8_t>(sign | (((1 << f.exp_bits) - 1) << man_bits));  // infinity
    return static_cast<uint8_t>(sign | f.max_bits);                                         // e4m3fn saturates
  };
  if (std::isinf(x)) return overflow();
  const double a = std::fabs(static_cast<double>(x));
  const int emin = 1 - f.bias;  // the exponent of the smallest normal value
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): its binade's exponent is e - 1
  const int q = std::max(e - 1, emin) - man_bits;
  const double scaled = std::ldexp(a, -q);  // exact: at most 24 significant bits
  double r = std::floor(scaled);
  const double rest = scaled - r;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  const double v = std::ldexp(r, q);  // r may reach the next binade: still exact
  if (v > f.max_finite) return overflow();
  if (v == 0.0) return f.fnuz ? 0x00 : sign;  // the fnuz formats have no negative zero
  int ev = 0;
  std::frexp(v, &ev);
  --ev;
  if (ev < emin) return static_cast<uint8_t>(sign | static_cast<int>(r));  // subnormal: q is the subnormal quantum
  const int mantissa = static_cast<int>(std::ldexp(v, man_bits - ev)) - (1 << man_bits);
  return static_cast<uint8_t>(sign | ((ev + f.bias) << man_bits) | mantissa);
}

// A float32 scale seen as a [rows, cols] matrix by broadcasting (0-d, [cols], [1|rows, 1|cols]).
struct Scale {
  const float* data;
  int64_t row_stride, col_stride;
  float at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

Scale broadcast_scale(const Tensor& s, int64_t rows, int64_t cols, const char* what) {
  SHIMGEN_REQUIRE(s.dtype == kFloat32,
                  std::string("_scaled_mm: ") + what + " must be float32, got " + scalar_type_name(s.dtype));
  const size_t rank = s.sizes.size();
  SHIMGEN_REQUIRE(rank <= 2,
                  std::string("_scaled_mm: ") + what + " must have at most 2 dimensions, got " + shape_str(s.sizes));
  const int64_t sr = rank == 2 ? s.sizes[0] : 1, sc = rank >= 1 ? s.sizes[rank - 1] : 1;
  SHIMGEN_REQUIRE((sr == 1 || sr == rows) && (sc == 1 || sc == cols),
                  std::string("_scaled_mm: ") + what + " of shape " + shape_str(s.sizes) + " does not broadcast to " +
                      shape_str({rows, cols}));
  const auto* data = reinterpret_cast<const float*>(s.data());
  return Scale{data, sr == 1 ? 0 : s.strides[0], sc == 1 ? 0 : s.strides[rank - 1]};
}

// The product into o (checked against the operands; the CPU kernel sums in float32 whatever
// use_fast_accum says). Both shims below run it.
void scaled_mm_into(const Tensor& o, AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle scale_a,
                    AtenTensorHandle scale_b, AtenTensorHandle* bias, AtenTensorHandle* scale_result,
                    int32_t* out_dtype) {
  const Tensor& a = cpu_tensor(self, "self");
  const Tensor& b = cpu_tensor(mat2, "mat2");
  SHIMGEN_REQUIRE(a.sizes.size() == 2 && b.sizes.size() == 2, "_scaled_mm: self and mat2 must be matrices, got " +
                                                                  shape_str(a.sizes) + " and " + shape_str(b.sizes));
  const int64_t M = a.sizes[0], K = a.sizes[1], N = b.sizes[1];
  SHIMGEN_REQUIRE(b.sizes[0] == K, "_scaled_mm: mat1 and mat2 shapes cannot be multiplied (" + shape_str(a.sizes) +
                                       " and " + shape_str(b.sizes) + ")");
  const std::array<float, 256>& av = float8_format(a.dtype, "self").values;
  const std::array<float, 256>& bv = float8_format(b.dtype, "mat2").values;
  const int32_t want = out_dtype != nullptr ? *out_dtype : a.dtype;
  SHIMGEN_REQUIRE(o.dtype == want, std::string("_scaled_mm: out has dtype ") + scalar_type_name(o.dtype) +
                                       ", out_dtype says " + scalar_type_name(want));
  if (o.dtype != kFloat32 && o.dtype != kBFloat16 && o.dtype != kFloat16 && !is_float8(o.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("_scaled_mm: a ") + scalar_type_name(o.dtype) +
                                                " output is not supported by the runtime; float32, bfloat16, "
                                                "float16 and the float8 formats are");
  // scale_result: checked whenever given (torch: "scale_result must be a float scalar"), applied
  // only to an e4m3fn or e5m2 out named by out_dtype, as the float reciprocal torch multiplies by.
  float result_factor = 1.0f;
  const bool scales_result = out_dtype != nullptr && (*out_dtype == kFloat8_e4m3fn || *out_dtype == kFloat8_e5m2);
  if (scale_result != nullptr && *scale_result != nullptr) {
    const Tensor& sr = cpu_tensor(*scale_result, "scale_result");
    SHIMGEN_REQUIRE(sr.dtype == kFloat32 && sr.numel() == 1,
                    std::string("_scaled_mm: scale_result must be a float32 scalar, got ") +
                        scalar_type_name(sr.dtype) + " " + shape_str(sr.sizes));
    if (scales_result) result_factor = 1.0f / *reinterpret_cast<const float*>(sr.data());
  }
  SHIMGEN_REQUIRE(o.sizes == std::vector<int64_t>({M, N}),
                  "_scaled_mm: out must be " + shape_str({M, N}) + ", got " + shape_str(o.sizes));
  const Scale sa = broadcast_scale(cpu_tensor(scale_a, "scale_a"), M, K, "scale_a");
  const Scale sb = broadcast_scale(cpu_tensor(scale_b, "scale_b"), K, N, "scale_b");
  const Tensor* bias_t = bias != nullptr && *bias != nullptr ? &cpu_tensor(*bias, "bias") : nullptr;
  int64_t bias_stride = 0;
  if (bias_t != nullptr) {
    const auto& s = bias_t->sizes;
    SHIMGEN_REQUIRE(s.size() <= 1 || (s.size() == 2 && s[0] == 1), "_scaled_mm: bias must be [N], got " + shape_str(s));
    SHIMGEN_REQUIRE(s.empty() || s.back() == N || s.back() == 1,
                    "_scaled_mm: bias of shape " + shape_str(s) + " does not broadcast to " + shape_str({M, N}));
    bias_stride = s.empty() || s.back() == 1 ? 0 : bias_t->strides.back();
  }
  std::vector<float> bias_row(static_cast<size_t>(N), 0.0f);  // added only when given: -0.0 + 0.0 is +0.0
  if (bias_t != nullptr) {
    dispatch_floating(bias_t->dtype, "_scaled_mm bias", [&](auto tag) {
      using B = decltype(tag);
      for (int64_t n = 0; n < N; ++n)
        bias_row[static_cast<size_t>(n)] =
            static_cast<float>(reinterpret_cast<const B*>(bias_t->data())[n * bias_stride]);
    });
  }
  // The scaled operands in float32, then their product summed in float32.
  std::vector<float> x(static_cast<size_t>(M * K)), y(static_cast<size_t>(K * N)), product(static_cast<size_t>(M * N));
  const auto* ab = reinterpret_cast<const uint8_t*>(a.data());
  const auto* bb = reinterpret_cast<const uint8_t*>(b.data());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) x[size_t(m * K + k)] = av[ab[m * a.strides[0] + k * a.strides[1]]] * sa.at(m, k);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) y[size_t(k * N + n)] = bv[bb[k * b.strides[0] + n * b.strides[1]]] * sb.at(k, n);
  for (int64_t m = 0; m < M; ++m) {
    float* row = product.data() + m * N;
    for (int64_t n = 0; n < N; ++n) row[n] = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      const float xv = x[size_t(m * K + k)];
      const float* yk = y.data() + k * N;
      for (int64_t n = 0; n < N; ++n) row[n] += xv * yk[n];
    }
  }
  // The sum, the bias added, in float32; then rounded once to out's dtype.
  auto result = [&](int64_t m, int64_t n) {
    const float v = product[size_t(m * N + n)];
    return bias_t != nullptr ? v + bias_row[size_t(n)] : v;
  };
  if (is_float8(o.dtype)) {
    const Float8& f = float8_format(o.dtype, "out");
    auto* dst = reinterpret_cast<uint8_t*>(o.data());
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        const float v = result(m, n);
        dst[m * o.strides[0] + n * o.strides[1]] = to_float8(scales_result ? v * result_factor : v, f);
      }
    return;
  }
  dispatch_floating(o.dtype, "_scaled_mm", [&](auto tag) {
    using T = decltype(tag);
    auto* dst = reinterpret_cast<T*>(o.data());
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) dst[m * o.strides[0] + n * o.strides[1]] = static_cast<T>(result(m, n));
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError
aoti_torch_cpu__scaled_mm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2,
                              AtenTensorHandle scale_a, AtenTensorHandle scale_b, AtenTensorHandle* bias,
                              AtenTensorHandle* scale_result, int32_t* out_dtype, int32_t use_fast_accum) {
  (void)use_fast_accum;
  return guarded(__func__, [&] {
    scaled_mm_into(cpu_tensor(out, "out"), self, mat2, scale_a, scale_b, bias, scale_result, out_dtype);
  });
}

// aoti_torch_cpu__scaled_mm: the functional form (torch's header declares both; inductor emits it where
// _scaled_mm falls back rather than lowering to the out-variant extern kernel): a new contiguous [M, N]
// of out_dtype (self's dtype when left out), filled by _scaled_mm_out above with the same rules.
extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__scaled_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                                     AtenTensorHandle scale_a, AtenTensorHandle scale_b,
                                                                     AtenTensorHandle* bias,
                                                                     AtenTensorHandle* scale_result, int32_t* out_dtype,
                                                                     int32_t use_fast_accum, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(mat2, "mat2");
    SHIMGEN_REQUIRE(a.sizes.size() == 2 && b.sizes.size() == 2, "_scaled_mm: self and mat2 must be matrices, got " +
                                                                    shape_str(a.sizes) + " and " + shape_str(b.sizes));
    (void)use_fast_accum;
    const std::vector<int64_t> sizes{a.sizes[0], b.sizes[1]};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), out_dtype != nullptr ? *out_dtype : a.dtype, kCPU, -1);
    scaled_mm_into(*out, self, mat2, scale_a, scale_b, bias, scale_result, out_dtype);
    *ret0 = wrap(std::move(out));
  });
}
