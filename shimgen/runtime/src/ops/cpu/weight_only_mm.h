// What the weight-only quantized linears (weight_int8pack_mm.cpp, weight_int4pack_mm_cpu_tensor.cpp)
// share: out [M, N] = A [M, K] @ W^T, where W [N, K] is dequantized from int8 or int4 codes tile by
// tile into float32, accumulated in float32 and rounded once to A's dtype (torch's CPU kernels
// accumulate the same way: bfloat16 results agree bit for bit with a float32 product rounded once).
//
// A tile is NB = 64 output columns. Each op's dequantizer writes the tile k-major: w[k * 64 + j] is
// W[n0 + j, k] (columns past N are zero). Rows of A go kSmallM at a time through a direct loop over
// k that keeps their 64 sums each in AVX-512 registers (the tile stays in cache for the next rows);
// without AVX-512, more than kSmallM rows go through the BLAS GEMM (scipy-openblas32 sgemm) on the
// tile (measured slower than the direct loop there: 64-column products). Nothing here is exported.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../cpu_avx512.h"
#include "cpu_op.h"

namespace shimgen::rt::cpu::woq {

constexpr int64_t kTileN = 64;
constexpr int64_t kSmallM = 4;

// A [M, K] (float32/bfloat16/float16, any strides) as a contiguous float32 copy (float32 with unit
// column stride is read in place: *data points into A).
struct FloatRows {
  std::vector<float> copy;
  const float* data = nullptr;
  int64_t ld = 0;
};

template <class T> void widen_rows(const Tensor& a, FloatRows& rows) {
  const int64_t m = a.sizes[0], k = a.sizes[1];
  const auto* src = reinterpret_cast<const T*>(a.data());
  if constexpr (std::is_same_v<T, float>) {
    if (a.strides[1] == 1 || k == 1) {
      rows.data = src;
      rows.ld = m > 1 ? a.strides[0] : k;
      return;
    }
  }
  rows.copy.resize(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j)
      rows.copy[static_cast<size_t>(i * k + j)] = static_cast<float>(src[i * a.strides[0] + j * a.strides[1]]);
  rows.data = rows.copy.data();
  rows.ld = k;
}

// c[i * 64 + j] = sum_k a[i * lda + k] * w[k * 64 + j] for i < m (m <= kSmallM), j < 64.
inline void small_m_tile_portable(const float* a, int64_t lda, int64_t m, int64_t k, const float* w, float* c) {
  for (int64_t i = 0; i < m; ++i) {
    float acc[kTileN] = {};
    for (int64_t p = 0; p < k; ++p) {
      const float x = a[i * lda + p];
      const float* row = w + p * kTileN;
      for (int64_t j = 0; j < kTileN; ++j) acc[j] += x * row[j];
    }
    std::copy(acc, acc + kTileN, c + i * kTileN);
  }
}

#ifdef SHIMGEN_HAVE_AVX512
SHIMGEN_AVX512 inline void small_m_tile_avx512(const float* a, int64_t lda, int64_t m, int64_t k, const float* w,
                                               float* c) {
  __m512 acc[kSmallM][4];
  for (int64_t i = 0; i < kSmallM; ++i)
    for (int v = 0; v < 4; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float* row = w + p * kTileN;
    const __m512 w0 = _mm512_loadu_ps(row), w1 = _mm512_loadu_ps(row + 16);
    const __m512 w2 = _mm512_loadu_ps(row + 32), w3 = _mm512_loadu_ps(row + 48);
    for (int64_t i = 0; i < m; ++i) {
      const __m512 x = _mm512_set1_ps(a[i * lda + p]);
      acc[i][0] = _mm512_fmadd_ps(x, w0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(x, w1, acc[i][1]);
      acc[i][2] = _mm512_fmadd_ps(x, w2, acc[i][2]);
      acc[i][3] = _mm512_fmadd_ps(x, w3, acc[i][3]);
    }
  }
  for (int64_t i = 0; i < m; ++i)
    for (int v = 0; v < 4; ++v) _mm512_storeu_ps(c + i * kTileN + 16 * v, acc[i][v]);
}
#endif

inline void small_m_tile(const float* a, int64_t lda, int64_t m, int64_t k, const float* w, float* c) {
#ifdef SHIMGEN_HAVE_AVX512
  if (avx512::has_avx512()) return small_m_tile_avx512(a, lda, m, k, w, c);
#endif
  small_m_tile_portable(a, lda, m, k, w, c);
}

// The product: dequant(n0, w) fills the k-major tile of columns n0 .. n0+63 (see above);
// finish(i, n, sum) turns a float32 sum into out[i, n]'s value (float) — int8's per-column scale.
template <class T, class Dequant, class Finish>
void product(const Tensor& a, const Tensor& out, int64_t n_total, Dequant&& dequant, Finish&& finish) {
  const int64_t m = a.sizes[0], k = a.sizes[1];
  if (m == 0 || n_total == 0) return;
  auto* dst = reinterpret_cast<T*>(out.data());
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t n = 0; n < n_total; ++n) dst[i * out.strides[0] + n * out.strides[1]] = T(finish(i, n, 0.0f));
    return;
  }
  FloatRows rows;
  widen_rows<T>(a, rows);
  std::vector<float> tile(static_cast<size_t>(k * kTileN));
  std::vector<float> sums(static_cast<size_t>(m * kTileN));
  for (int64_t n0 = 0; n0 < n_total; n0 += kTileN) {
    const int64_t nb = std::min(kTileN, n_total - n0);
    dequant(n0, tile.data());
    if (m <= kSmallM || avx512::has_avx512()) {
      for (int64_t i0 = 0; i0 < m; i0 += kSmallM)
        small_m_tile(rows.data + i0 * rows.ld, rows.ld, std::min(kSmallM, m - i0), k, tile.data(),
                     sums.data() + i0 * kTileN);
    } else {
      gemm(Matrix<const float>{rows.data, m, k, rows.ld, 1}, Matrix<const float>{tile.data(), k, kTileN, kTileN, 1},
           Matrix<float>{sums.data(), m, kTileN, kTileN, 1}, 1.0f, 0.0f, BOperand::kActivation);
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < nb; ++j)
        dst[i * out.strides[0] + (n0 + j) * out.strides[1]] =
            T(finish(i, n0 + j, sums[static_cast<size_t>(i * kTileN + j)]));
  }
}

// The float32/bfloat16/float16 dispatch both ops take (torch's CPU kernels refuse float64).
template <class F> void dispatch_activation(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat32: f(float{}); break;
    case kBFloat16: f(BFloat16{}); break;
    case kFloat16: f(Half{}); break;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           std::string(op) + ": A has dtype code " + std::to_string(dtype) + "; expected float32, bfloat16 or float16");
  }
}

}  // namespace shimgen::rt::cpu::woq
