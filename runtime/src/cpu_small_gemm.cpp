// A direct float32 GEMM for tiny products, where OpenBLAS's fixed cost per call (argument checks,
// kernel dispatch, packing the operands) is most of the time: a transformer block's Linears are
// 32x96x32 and its attention heads 16x16x8, and OpenBLAS's small-matrix path is also about twice as
// slow for `x @ W^T` (B transposed) as for `x @ W`. That layout ("NT") is taken here: B is copied
// row-major into a per-thread scratch by 16x16 register transposes, then a register-blocked kernel
// with vectors along j ("NN") runs on it. AVX-512 only (intrinsics, picked at run time); elsewhere,
// and for every other layout or a larger size, the caller uses the BLAS.
#include <cstdint>
#include <vector>

#include "cpu_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SHIMGEN_SMALL_GEMM_AVX512 1
// GCC 12 reports the deliberately undefined vector inside its own intrinsics (_mm512_undefined_ps
// as the pass-through of unmasked operations) as uninitialized: a known false positive of
// avx512fintrin.h; nothing in this file reads one.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

namespace shimgen::rt::cpu {
namespace {

#ifdef SHIMGEN_SMALL_GEMM_AVX512

#define SHIMGEN_AVX512 __attribute__((target("avx512f")))

// Lanes j0 .. j0+count-1 of a 16-lane vector (count clamped to 0 .. 16).
SHIMGEN_AVX512 inline __mmask16 lanes(int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (count < 0 ? 0 : count)) - 1u);
}

// c[i, j0 .. j0+16) = alpha * acc + beta * c (beta == 0 never reads c), masked to the columns left.
SHIMGEN_AVX512 inline void store_row(float* c, __mmask16 mask, __m512 acc, float alpha, float beta) {
  __m512 r = _mm512_mul_ps(acc, _mm512_set1_ps(alpha));
  if (beta != 0.0f) r = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, c), _mm512_set1_ps(beta), r);
  _mm512_mask_storeu_ps(c, mask, r);
}

// NN: B rows contiguous (b.col_stride == 1). R (up to 8) rows of c by V vectors (16 or 32
// columns) at a time: R * V accumulators, each B load used R times. A is read one element at a
// time, so any strides of A work. Columns past n are masked off loads and stores.
template <int R, int V, bool Full>
SHIMGEN_AVX512 inline void nn_block(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                                    int64_t i0, int64_t j0, float alpha, float beta) {
  const int64_t k = a.cols;
  __mmask16 mask[V];
  for (int v = 0; v < V; ++v) mask[v] = lanes(c.cols - j0 - 16 * v);
  __m512 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  const float* bp = b.data + j0;
  const float* ap = a.data + i0 * a.row_stride;
  for (int64_t kk = 0; kk < k; ++kk, bp += b.row_stride, ap += a.col_stride) {
    __m512 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = Full ? _mm512_loadu_ps(bp + 16 * v) : _mm512_maskz_loadu_ps(mask[v], bp + 16 * v);
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * a.row_stride]);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      store_row(c.data + (i0 + r) * c.row_stride + j0 + 16 * v, mask[v], acc[r][v], alpha, beta);
}

template <int R>
SHIMGEN_AVX512 void nn_rows(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                            int64_t i0, float alpha, float beta) {
  int64_t j0 = 0;
  for (; c.cols - j0 >= 32; j0 += 32) nn_block<R, 2, true>(a, b, c, i0, j0, alpha, beta);
  if (c.cols - j0 > 16) nn_block<R, 2, false>(a, b, c, i0, j0, alpha, beta);
  else if (c.cols - j0 == 16) nn_block<R, 1, true>(a, b, c, i0, j0, alpha, beta);
  else if (j0 < c.cols) nn_block<R, 1, false>(a, b, c, i0, j0, alpha, beta);
}

SHIMGEN_AVX512 void gemm_nn(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                            float alpha, float beta) {
  int64_t i = 0;
  for (; i + 8 <= c.rows; i += 8) nn_rows<8>(a, b, c, i, alpha, beta);
  if (c.rows - i >= 4) {
    nn_rows<4>(a, b, c, i, alpha, beta);
    i += 4;
  }
  switch (c.rows - i) {
    case 3: nn_rows<3>(a, b, c, i, alpha, beta); break;
    case 2: nn_rows<2>(a, b, c, i, alpha, beta); break;
    case 1: nn_rows<1>(a, b, c, i, alpha, beta); break;
    default: break;
  }
}

// dst[e * dst_ld + j] = src[j * src_ld + e] for a 16x16 block: four rounds of in-lane unpacks and
// 128-bit lane shuffles (64 shuffles per 256 elements; a gather per 16 elements measured slower).
SHIMGEN_AVX512 inline void transpose16(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
  __m512 r[16], t[16], u[16];
  for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_ps(src + j * src_ld);
  for (int p = 0; p < 8; ++p) {  // per 128-bit lane: a0 b0 a1 b1 / a2 b2 a3 b3 of rows 2p, 2p+1
    t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 4; ++q) {  // u[4q + e], 128-bit lane L: rows 4q .. 4q+3 of column 4L + e
    const __m512d t0 = _mm512_castps_pd(t[4 * q]), t1 = _mm512_castps_pd(t[4 * q + 1]);
    const __m512d t2 = _mm512_castps_pd(t[4 * q + 2]), t3 = _mm512_castps_pd(t[4 * q + 3]);
    u[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  for (int e = 0; e < 4; ++e) {  // a 4x4 transpose of 128-bit lanes: column 4L + e is complete
    const __m512 v0 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0x44), v1 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0xEE);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0x44);
    const __m512 v3 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0xEE);
    _mm512_storeu_ps(dst + e * dst_ld, _mm512_shuffle_f32x4(v0, v2, 0x88));
    _mm512_storeu_ps(dst + (4 + e) * dst_ld, _mm512_shuffle_f32x4(v0, v2, 0xDD));
    _mm512_storeu_ps(dst + (8 + e) * dst_ld, _mm512_shuffle_f32x4(v1, v3, 0x88));
    _mm512_storeu_ps(dst + (12 + e) * dst_ld, _mm512_shuffle_f32x4(v1, v3, 0xDD));
  }
}

// NT: b transposed (b.row_stride == 1, as in x @ W^T: b's columns are W's rows). Dot products
// along k would need a horizontal sum per result (measured: slower than the BLAS here), so b is
// first copied row-major into a per-thread scratch, 16x16 blocks at a time (edges element by
// element), and the NN kernel runs on that: k * n copies against m * n * k multiply-adds.
SHIMGEN_AVX512 void gemm_nt(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                            float alpha, float beta) {
  const int64_t n = c.cols, k = a.cols, ld = b.col_stride;
  thread_local std::vector<float> packed;
  packed.resize(static_cast<size_t>(k * n));
  float* dst = packed.data();
  const int64_t n16 = n - n % 16, k16 = k - k % 16;
  for (int64_t j0 = 0; j0 < n16; j0 += 16)
    for (int64_t k0 = 0; k0 < k16; k0 += 16) transpose16(b.data + j0 * ld + k0, ld, dst + k0 * n + j0, n);
  for (int64_t j = 0; j < n; ++j) {  // the edges: columns past n16, or rows past k16
    const float* column = b.data + j * ld;
    for (int64_t kk = j < n16 ? k16 : 0; kk < k; ++kk) dst[kk * n + j] = column[kk];
  }
  gemm_nn(a, Matrix<const float>{dst, k, n, n, 1}, c, alpha, beta);
}

bool avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

#endif  // SHIMGEN_SMALL_GEMM_AVX512

}  // namespace

bool small_gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha,
                float beta) {
#ifdef SHIMGEN_SMALL_GEMM_AVX512
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  // Past this the BLAS's blocking and packing pay for themselves (64x128x128: the brief's bound,
  // far below the 256-square GEMMs the benchmark compares with numpy).
  if (m * n * k > 64 * 128 * 128 || k == 0 || !avx512()) return false;
  if (c.cols != 1 && c.col_stride != 1) return false;
  // b row-major: OpenBLAS's small-matrix kernel is as fast as gemm_nn here (benchmarks/small_gemm.py:
  // 0.93 .. 1.04x on the block's shapes), so it keeps those; only the transposed layout is taken.
  if (b.cols == 1 || b.col_stride == 1) return false;
  // The scratch copy of b stays small (256 KiB at most).
  if ((b.rows == 1 || b.row_stride == 1) && k * n <= 128 * 512) {
    gemm_nt(a, b, c, alpha, beta);
    return true;
  }
#else
  (void)a, (void)b, (void)c, (void)alpha, (void)beta;
#endif
  return false;
}

}  // namespace shimgen::rt::cpu
