// The int8 oneDNN ops' shared arithmetic (onednn_quant.h). The integer products are exact in int32
// (as oneDNN accumulates); everything after them is float32, as oneDNN's epilogue is.
#include "onednn_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "../../cpu_avx512.h"

namespace shimgen::rt::cpu::quant {
namespace {

int64_t int_at(const Tensor& t, int64_t at) {
  const char* p = t.data();
  switch (t.dtype) {
    case kUInt8: return reinterpret_cast<const uint8_t*>(p)[at];
    case kInt8: return reinterpret_cast<const int8_t*>(p)[at];
    case kInt32: return reinterpret_cast<const int32_t*>(p)[at];
    case kInt64: return reinterpret_cast<const int64_t*>(p)[at];
    default: break;
  }
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(scalar_type_name(t.dtype)) + " is not an integer type here");
}

// Element i (row-major) of a tensor of any strides: its offset from data().
int64_t offset_of(const Tensor& t, int64_t i) {
  int64_t at = 0;
  for (size_t d = t.sizes.size(); d-- > 0;) {
    at += (i % t.sizes[d]) * t.strides[d];
    i /= t.sizes[d];
  }
  return at;
}

// (x - zp) of every element as int16, row-major with rows of `stride` values (the tail zero): a
// uint8 minus its zero point leaves int8's range, and [-255, 255] times an int8 weight, summed in
// pairs, stays inside int32 (what AVX-512BW's vpmaddwd computes, exactly).
std::vector<int16_t> shifted(const Activation& a, int64_t k, int64_t stride) {
  const int64_t rows = k == 0 ? 0 : a.x->numel() / k;
  std::vector<int16_t> v(static_cast<size_t>(rows * stride), 0);
  const auto* p = a.x->data();
  const bool u8 = a.x->dtype == kUInt8;
  int16_t* out = v.data();
  int64_t column = 0;
  for_each_element(*a.x, [&](int64_t at) {
    const int32_t q = u8 ? reinterpret_cast<const uint8_t*>(p)[at] : reinterpret_cast<const int8_t*>(p)[at];
    out[column] = static_cast<int16_t>(q - a.zero_point);
    if (++column == k) {
      column = 0;
      out += stride;
    }
  });
  return v;
}

// The int32 GEMMs of the shifted activation (int16 rows, x_stride apart) with an int8 weight, exact:
//   by columns: acc[r][j] = sum_i x[r][i] * w[j * ld + i]  (each output channel a run of k weights:
//               the convolutions' [O][KH, KW, C/g] and a Linear weight read as [N, K]);
//   by rows:    acc[r][j] = sum_i x[r][i] * w[i * ld + j]  (a Linear weight row-major [K, N], as the
//               unpacked oneDNN weight is), x_stride even and the rows zero-padded to it.
// acc's rows are acc_stride apart. The AVX-512BW versions below give the same integers.
void gemm_by_columns_portable(const int16_t* x, int64_t x_stride, int64_t rows, int64_t k, const int8_t* w, int64_t ld,
                              int64_t n, int32_t* acc, int64_t acc_stride) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t r = 0; r < rows; ++r) {
      int32_t s = 0;
      for (int64_t i = 0; i < k; ++i) s += static_cast<int32_t>(x[r * x_stride + i]) * w[j * ld + i];
      acc[r * acc_stride + j] = s;
    }
}

void gemm_by_rows_portable(const int16_t* x, int64_t x_stride, int64_t rows, int64_t k, const int8_t* w, int64_t ld,
                           int64_t n, int32_t* acc, int64_t acc_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t* ar = acc + r * acc_stride;
    std::fill(ar, ar + n, 0);
    for (int64_t i = 0; i < k; ++i) {
      const int32_t xv = x[r * x_stride + i];
      const int8_t* wr = w + i * ld;
      for (int64_t j = 0; j < n; ++j) ar[j] += xv * wr[j];
    }
  }
}

#ifdef SHIMGEN_HAVE_AVX512
#define SHIMGEN_AVX512BW __attribute__((target("avx512f,avx512bw")))

// By columns: 32 weights widened to int16 once, multiplied with four rows at a time (vpmaddwd),
// the k % 32 tail in scalar code.
SHIMGEN_AVX512BW void gemm_by_columns_avx512bw(const int16_t* x, int64_t x_stride, int64_t rows, int64_t k,
                                               const int8_t* w, int64_t ld, int64_t n, int32_t* acc,
                                               int64_t acc_stride) {
  const int64_t body = k - k % 32;
  auto tail = [&](const int16_t* xr, const int8_t* wj) {
    int32_t s = 0;
    for (int64_t i = body; i < k; ++i) s += static_cast<int32_t>(xr[i]) * wj[i];
    return s;
  };
  for (int64_t j = 0; j < n; ++j) {
    const int8_t* wj = w + j * ld;
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const int16_t* x0 = x + r * x_stride;
      __m512i s[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
      for (int64_t i = 0; i < body; i += 32) {
        const __m512i wv = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj + i)));
        for (int q = 0; q < 4; ++q)
          s[q] = _mm512_add_epi32(s[q], _mm512_madd_epi16(_mm512_loadu_si512(x0 + q * x_stride + i), wv));
      }
      for (int q = 0; q < 4; ++q)
        acc[(r + q) * acc_stride + j] = _mm512_reduce_add_epi32(s[q]) + tail(x0 + q * x_stride, wj);
    }
    for (; r < rows; ++r) {
      const int16_t* xr = x + r * x_stride;
      __m512i s = _mm512_setzero_si512();
      for (int64_t i = 0; i < body; i += 32) {
        const __m512i wv = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj + i)));
        s = _mm512_add_epi32(s, _mm512_madd_epi16(_mm512_loadu_si512(xr + i), wv));
      }
      acc[r * acc_stride + j] = _mm512_reduce_add_epi32(s) + tail(xr, wj);
    }
  }
}

// By rows, 32 output channels and NR rows at a time: weight rows i and i+1 widened to int16 and
// interleaved (vpunpck{l,h}wd: each 32-bit lane one channel's pair), times the pair (x[i], x[i+1])
// broadcast (vpmaddwd). Within each 128-bit lane the low half holds channels 0-3 and the high half
// 4-7, so the two accumulators are put back in channel order when stored.
template <int NR> SHIMGEN_AVX512BW void rows_block(const int16_t* x, int64_t x_stride, int64_t k, const int8_t* w,
                                                   int64_t ld, int32_t* acc, int64_t acc_stride) {
  __m512i lo[NR], hi[NR];
  for (int q = 0; q < NR; ++q) lo[q] = hi[q] = _mm512_setzero_si512();
  for (int64_t i = 0; i < k; i += 2) {
    const __m512i a = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + i * ld)));
    const __m512i b = i + 1 < k
                          ? _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + (i + 1) * ld)))
                          : _mm512_setzero_si512();
    const __m512i pl = _mm512_unpacklo_epi16(a, b), ph = _mm512_unpackhi_epi16(a, b);
    for (int q = 0; q < NR; ++q) {
      int32_t pair;
      std::memcpy(&pair, x + q * x_stride + i, sizeof pair);  // x[i] low, x[i + 1] high (0 past k)
      const __m512i xv = _mm512_set1_epi32(pair);
      lo[q] = _mm512_add_epi32(lo[q], _mm512_madd_epi16(pl, xv));
      hi[q] = _mm512_add_epi32(hi[q], _mm512_madd_epi16(ph, xv));
    }
  }
  const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  for (int q = 0; q < NR; ++q) {
    _mm512_storeu_si512(acc + q * acc_stride, _mm512_permutex2var_epi32(lo[q], first, hi[q]));
    _mm512_storeu_si512(acc + q * acc_stride + 16, _mm512_permutex2var_epi32(lo[q], second, hi[q]));
  }
}

SHIMGEN_AVX512BW void gemm_by_rows_avx512bw(const int16_t* x, int64_t x_stride, int64_t rows, int64_t k,
                                            const int8_t* w, int64_t ld, int64_t n, int32_t* acc, int64_t acc_stride) {
  const int64_t body = n - n % 32;
  for (int64_t j = 0; j < body; j += 32) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      rows_block<4>(x + r * x_stride, x_stride, k, w + j, ld, acc + r * acc_stride + j, acc_stride);
    for (; r < rows; ++r) rows_block<1>(x + r * x_stride, x_stride, k, w + j, ld, acc + r * acc_stride + j, acc_stride);
  }
  if (body < n) gemm_by_rows_portable(x, x_stride, rows, k, w + body, ld, n - body, acc + body, acc_stride);
}
#endif

bool has_avx512bw() {
#ifdef SHIMGEN_HAVE_AVX512
  static const bool has = __builtin_cpu_supports("avx512bw");
  return has;
#else
  return false;
#endif
}

void require_int8_weight(const char* op, const Tensor& w) {
  SHIMGEN_REQUIRE(w.dtype == kInt8,
                  std::string(op) + ": the weight must be int8 (oneDNN-packed), got " + scalar_type_name(w.dtype));
}

}  // namespace

Int8Gemm int8_gemm_by_rows(bool portable) {
#ifdef SHIMGEN_HAVE_AVX512
  if (!portable && has_avx512bw()) return gemm_by_rows_avx512bw;
#endif
  return gemm_by_rows_portable;
}

Int8Gemm int8_gemm_by_columns(bool portable) {
#ifdef SHIMGEN_HAVE_AVX512
  if (!portable && has_avx512bw()) return gemm_by_columns_avx512bw;
#endif
  return gemm_by_columns_portable;
}

int32_t output_dtype(const char* op, const int32_t* dtype, const Tensor& x) {
  if (dtype == nullptr) return x.dtype;
  if (*dtype == kUInt8 || *dtype == kInt8 || *dtype == kFloat32 || *dtype == kBFloat16) return *dtype;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": output dtype " + scalar_type_name(*dtype) +
                                              " is not supported (uint8, int8, float32, bfloat16)");
}

Activation activation(const char* op, AtenTensorHandle X, AtenTensorHandle scale, AtenTensorHandle zero_point) {
  Activation a;
  a.x = &cpu_tensor(X, "X");
  SHIMGEN_REQUIRE(a.x->dtype == kUInt8 || a.x->dtype == kInt8,
                  std::string(op) + ": X must be uint8 or int8, got " + scalar_type_name(a.x->dtype));
  const Tensor& s = cpu_tensor(scale, "act_scale");
  const Tensor& z = cpu_tensor(zero_point, "act_zero_point");
  SHIMGEN_REQUIRE(s.numel() == 1 && z.numel() == 1,
                  std::string(op) + ": act_scale and act_zero_point must hold one value each (per-tensor)");
  a.scale = fused::load_float(s.data(), 0, s.dtype);
  const int64_t zp = int_at(z, 0);
  const int64_t lo = a.x->dtype == kUInt8 ? 0 : -128, hi = a.x->dtype == kUInt8 ? 255 : 127;
  SHIMGEN_REQUIRE(zp >= lo && zp <= hi,
                  std::string(op) + ": act_zero_point " + std::to_string(zp) + " is outside X's range");
  a.zero_point = static_cast<int32_t>(zp);
  return a;
}

std::vector<float> channel_scales(const char* op, const Activation& a, AtenTensorHandle weight_scales,
                                  AtenTensorHandle weight_zero_points, int64_t n) {
  const Tensor& s = cpu_tensor(weight_scales, "weight_scales");
  SHIMGEN_REQUIRE(s.numel() == 1 || s.numel() == n, std::string(op) + ": weight_scales has " +
                                                        std::to_string(s.numel()) + " values for " + std::to_string(n) +
                                                        " output channels");
  if (weight_zero_points != nullptr) {
    const Tensor& z = cpu_tensor(weight_zero_points, "weight_zero_points");
    for (int64_t i = 0; i < z.numel(); ++i)
      if (int_at(z, offset_of(z, i)) != 0)
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
             std::string(op) + ": a nonzero weight zero point (oneDNN's int8 weights are symmetric)");
  }
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c)
    out[c] = a.scale * fused::load_float(s.data(), offset_of(s, s.numel() == 1 ? 0 : c), s.dtype);
  return out;
}

Epilogue epilogue(AtenTensorHandle* B, const fused::Unary& unary, double output_scale, int64_t output_zero_point) {
  Epilogue e;
  e.bias = optional_tensor(B, "B");
  e.unary = unary;
  e.output_scale = output_scale;
  e.output_zero_point = output_zero_point;
  return e;
}

bool parse_binary(const char* op, const char* name) {
  const std::string b = name == nullptr ? "" : name;
  if (b == "sum") return true;
  if (b == "add") return false;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": binary post-op '" + b + "' is not supported (sum, add)");
}

void finish(const char* op, const std::vector<int32_t>& acc, const std::vector<int64_t>& logical,
            const std::vector<int64_t>& perm, const std::vector<float>& scales, const Epilogue& e, const Tensor& dst) {
  const int64_t channels = logical.back();
  if (e.bias != nullptr)
    SHIMGEN_REQUIRE(e.bias->numel() == channels, std::string(op) + ": the bias has " + std::to_string(e.bias->numel()) +
                                                     " values for " + std::to_string(channels) + " output channels");
  const bool quantized = dst.dtype == kUInt8 || dst.dtype == kInt8;
  if (!quantized && (e.output_scale != 1.0 || e.output_zero_point != 0))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": a float output with output scale " +
                                                std::to_string(e.output_scale) + " and zero point " +
                                                std::to_string(e.output_zero_point) + " (only 1 and 0)");
  std::vector<float> bias(static_cast<size_t>(channels), 0.0f);
  if (e.bias != nullptr)
    for (int64_t c = 0; c < channels; ++c)
      bias[c] = fused::load_float(e.bias->data(), offset_of(*e.bias, c), e.bias->dtype);
  std::vector<int64_t> dst_strides(logical.size()), other_strides(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) {
    dst_strides[i] = dst.strides[perm[i]];
    if (e.other != nullptr) other_strides[i] = e.other->strides[perm[i]];
  }
  const float oscale = static_cast<float>(e.output_scale);
  const float lo = dst.dtype == kUInt8 ? 0.0f : -128.0f, hi = dst.dtype == kUInt8 ? 255.0f : 127.0f;
  const bool other_int =
      e.other != nullptr && (e.other->dtype == kUInt8 || e.other->dtype == kInt8 || e.other->dtype == kInt32);
  char* out = dst.data();
  const bool unary = e.unary.kind != fused::Unary::kNone;
  auto store = [&](int64_t j, float v) {
    if (unary) v = fused::apply_unary(e.unary, v);
    if (quantized) {
      // Requantize: divide by the output scale, round half to even (the default rounding mode),
      // add the zero point, saturate.
      const float q = std::min(std::max(std::nearbyint(v / oscale) + static_cast<float>(e.output_zero_point), lo), hi);
      if (dst.dtype == kUInt8) reinterpret_cast<uint8_t*>(out)[j] = static_cast<uint8_t>(q);
      else reinterpret_cast<int8_t*>(out)[j] = static_cast<int8_t>(q);
    } else if (dst.dtype == kFloat32) {
      reinterpret_cast<float*>(out)[j] = v;
    } else {
      reinterpret_cast<BFloat16*>(out)[j] = BFloat16(v);
    }
  };
  // Row by row of acc (one row of channels per output position), dst's and other's offsets of the
  // row stepped along logical's leading dims; within a row, each channel at its own stride.
  const size_t lead = logical.size() - 1;
  const int64_t rows = channels == 0 ? 0 : static_cast<int64_t>(acc.size()) / channels;
  const int64_t dst_step = dst_strides[lead], other_step = other_strides[lead];
  std::vector<int64_t> index(lead, 0);
  int64_t dst_row = 0, other_row = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* ar = acc.data() + r * channels;
    if (e.other == nullptr) {
      for (int64_t c = 0; c < channels; ++c)
        store(dst_row + c * dst_step, static_cast<float>(ar[c]) * scales[c] + bias[c]);
    } else {
      // The binary operand is read where dst is written (the "sum" ops write into it).
      const Tensor& o = *e.other;
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t oj = other_row + c * other_step;
        const float other = other_int ? static_cast<float>(int_at(o, oj) - e.other_zero_point) * e.other_scale
                                      : fused::load_float(o.data(), oj, o.dtype);
        store(dst_row + c * dst_step, static_cast<float>(ar[c]) * scales[c] + bias[c] + e.alpha * other);
      }
    }
    for (size_t d = lead; d-- > 0;) {
      dst_row += dst_strides[d];
      other_row += other_strides[d];
      if (++index[d] < logical[d]) break;
      dst_row -= dst_strides[d] * logical[d];
      other_row -= other_strides[d] * logical[d];
      index[d] = 0;
    }
  }
}

LinearS32 linear_s32(const char* op, const Activation& a, const Tensor& w) {
  require_int8_weight(op, w);
  const Tensor& x = *a.x;
  SHIMGEN_REQUIRE(!x.sizes.empty() && w.sizes.size() == 2 && w.sizes[0] == x.sizes.back(),
                  std::string(op) + ": X [..., K] and the packed weight [K, N] do not match");
  const int64_t k = w.sizes[0], n = w.sizes[1];
  const int64_t rows = k == 0 ? 0 : x.numel() / k;
  const int64_t x_stride = k + (k & 1);  // even: gemm_by_rows reads x in pairs
  const std::vector<int16_t> xs = shifted(a, k, x_stride);
  const auto* wp = reinterpret_cast<const int8_t*>(w.data());
  std::vector<int32_t> acc(static_cast<size_t>(rows * n), 0);
  if (k > 0 && n > 0) {
    if (w.strides[1] == 1 || n == 1) {  // row-major [K, N]: the unpacked oneDNN weight
      int8_gemm_by_rows(false)(xs.data(), x_stride, rows, k, wp, w.strides[0], n, acc.data(), n);
    } else if (w.strides[0] == 1 || k == 1) {  // each output channel's K weights contiguous
      int8_gemm_by_columns(false)(xs.data(), x_stride, rows, k, wp, w.strides[1], n, acc.data(), n);
    } else {  // any other strides: gathered row-major once
      std::vector<int8_t> gathered(static_cast<size_t>(k * n));
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < n; ++j) gathered[kk * n + j] = wp[kk * w.strides[0] + j * w.strides[1]];
      int8_gemm_by_rows(false)(xs.data(), x_stride, rows, k, gathered.data(), n, n, acc.data(), n);
    }
  }
  std::vector<int64_t> sizes(x.sizes);
  sizes.back() = n;
  return {std::move(acc), rows, n, std::move(sizes)};
}

std::vector<int32_t> conv2d_s32(const char* op, const Activation& a, const Tensor& w, const int64_t* stride,
                                int64_t stride_len, const int64_t* padding, int64_t padding_len,
                                const int64_t* dilation, int64_t dilation_len, int64_t groups,
                                std::vector<int64_t>& out_sizes) {
  require_int8_weight(op, w);
  const Tensor& x = *a.x;
  if (x.sizes.size() != 4 || w.sizes.size() != 4)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": only 2-D convolutions (4-D X and weight) are served");
  auto pick = [&](const int64_t* v, int64_t len, int i, int64_t dflt, const char* what) {
    SHIMGEN_REQUIRE(len == 0 || len == 1 || len == 2, std::string(op) + ": " + what + " needs 1 or 2 values");
    return len == 0 ? dflt : v[len == 1 ? 0 : i];
  };
  const int64_t sh = pick(stride, stride_len, 0, 1, "stride"), sw = pick(stride, stride_len, 1, 1, "stride");
  const int64_t ph = pick(padding, padding_len, 0, 0, "padding"), pw = pick(padding, padding_len, 1, 0, "padding");
  const int64_t dh = pick(dilation, dilation_len, 0, 1, "dilation"),
                dw = pick(dilation, dilation_len, 1, 1, "dilation");
  const int64_t nb = x.sizes[0], c = x.sizes[1], h = x.sizes[2], wd = x.sizes[3];
  const int64_t o = w.sizes[0], cg = w.sizes[1], kh = w.sizes[2], kw = w.sizes[3];
  SHIMGEN_REQUIRE(groups >= 1 && c == cg * groups && o % groups == 0 && sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 &&
                      ph >= 0 && pw >= 0,
                  std::string(op) + ": X, weight, groups, stride, padding or dilation do not agree");
  const int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1, ow = (wd + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  SHIMGEN_REQUIRE(oh >= 1 && ow >= 1, std::string(op) + ": the output would be empty");
  out_sizes = {nb, o, oh, ow};
  // Per group, the shifted activation's patches as rows [N * OH * OW][KH, KW, C/g] int16 (padding
  // is the zero point, which shifts to 0; each row zero-padded to an even length) times the group's
  // weight row-major [KH, KW, C/g][channels], its channels zero-padded to a multiple of 32 (the GEMM's
  // vector width over channels: a narrow layer computes zeros rather than falling to scalar code).
  const int64_t og = o / groups, patch = kh * kw * cg, pixels = nb * oh * ow;
  const int64_t patch_stride = patch + (patch & 1), og_padded = (og + 31) / 32 * 32;
  std::vector<int8_t> ws(static_cast<size_t>(groups * patch * og_padded), 0);
  const auto* wp = reinterpret_cast<const int8_t*>(w.data());
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t ic = 0; ic < cg; ++ic)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t z = 0; z < kw; ++z)
          ws[((oc / og) * patch + (y * kw + z) * cg + ic) * og_padded + oc % og] =
              wp[oc * w.strides[0] + ic * w.strides[1] + y * w.strides[2] + z * w.strides[3]];
  const bool u8 = x.dtype == kUInt8;
  const char* xp = x.data();
  std::vector<int32_t> acc(static_cast<size_t>(pixels * o), 0), part(static_cast<size_t>(pixels * og_padded));
  std::vector<int16_t> cols(static_cast<size_t>(pixels * patch_stride));
  for (int64_t g = 0; g < groups; ++g) {
    std::fill(cols.begin(), cols.end(), int16_t{0});
    for (int64_t in = 0; in < nb; ++in)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          int16_t* row = cols.data() + ((in * oh + y) * ow + z) * patch_stride;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = y * sh - ph + ky * dh;
            if (iy < 0 || iy >= h) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = z * sw - pw + kx * dw;
              if (ix < 0 || ix >= wd) continue;
              int16_t* dst = row + (ky * kw + kx) * cg;
              const int64_t base = in * x.strides[0] + iy * x.strides[2] + ix * x.strides[3];
              for (int64_t ic = 0; ic < cg; ++ic) {
                const int64_t at = base + (g * cg + ic) * x.strides[1];
                const int32_t q =
                    u8 ? reinterpret_cast<const uint8_t*>(xp)[at] : reinterpret_cast<const int8_t*>(xp)[at];
                dst[ic] = static_cast<int16_t>(q - a.zero_point);
              }
            }
          }
        }
    int8_gemm_by_rows(false)(cols.data(), patch_stride, pixels, patch, ws.data() + g * patch * og_padded, og_padded,
                             og_padded, part.data(), og_padded);
    for (int64_t r = 0; r < pixels; ++r) std::copy_n(part.data() + r * og_padded, og, acc.data() + r * o + g * og);
  }
  return acc;
}

AtenTensorHandle alias(const Tensor& t) {
  return wrap(std::make_unique<Tensor>(Tensor{t.storage, t.sizes, t.strides, t.storage_offset, t.dtype}));
}

}  // namespace shimgen::rt::cpu::quant
