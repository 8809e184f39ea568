// A direct float32 GEMM for tiny products, where OpenBLAS's fixed cost per call (argument checks,
// kernel dispatch, packing the operands) is most of the time: a transformer block's Linears are
// 32x96x32 and its attention heads 16x16x8, and OpenBLAS's small-matrix path is also about twice as
// slow for `x @ W^T` (B transposed) as for `x @ W`. That layout ("NT") is taken here: B is copied
// row-major by 16x16 register transposes, once per weight (cpu_packed_weights.h keeps the copy,
// checked against W's bytes on every use), then a register-blocked kernel with vectors along j
// ("NN") runs on it, with addmm's bias added in its epilogue. AVX-512 only (intrinsics, picked at
// run time); elsewhere, and for every other layout or a larger size, the caller uses the BLAS.
#include <cstdint>
#include <vector>

#include "cpu_avx512.h"
#include "cpu_kernels.h"
#include "cpu_packed_weights.h"

namespace shimgen::rt::cpu {
namespace {

#ifdef SHIMGEN_HAVE_AVX512

using avx512::lanes;
using avx512::transpose16;

// What the kernel adds to alpha * (a @ b): beta * c (bias == nullptr; beta == 0 never reads c), or
// beta * bias (addmm), bias[i, j] at bias->data[i * row_stride + j * col_stride], col_stride 0 or 1.
struct Epilogue {
  float alpha;
  float beta;
  const Bias* bias;
};

// c[i, j0 .. j0+16) = alpha * acc + beta * (c or bias), masked to the columns left.
SHIMGEN_AVX512 inline void store_row(float* c, int64_t i, int64_t j0, __mmask16 mask, __m512 acc, const Epilogue& ep) {
  __m512 r = _mm512_mul_ps(acc, _mm512_set1_ps(ep.alpha));
  if (ep.beta != 0.0f) {
    __m512 add;
    if (ep.bias == nullptr) {
      add = _mm512_maskz_loadu_ps(mask, c);
    } else {
      const float* row = ep.bias->data + i * ep.bias->row_stride;
      add = ep.bias->col_stride == 0 ? _mm512_set1_ps(*row) : _mm512_maskz_loadu_ps(mask, row + j0);
    }
    r = _mm512_fmadd_ps(add, _mm512_set1_ps(ep.beta), r);
  }
  _mm512_mask_storeu_ps(c, mask, r);
}

// NN: B rows contiguous (b.col_stride == 1). R (up to 8) rows of c by V vectors (16 or 32
// columns) at a time: R * V accumulators, each B load used R times. A is read one element at a
// time, so any strides of A work. Columns past n are masked off loads and stores.
template <int R, int V, bool Full>
SHIMGEN_AVX512 inline void nn_block(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                                    int64_t i0, int64_t j0, const Epilogue& ep) {
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
    for (int v = 0; v < V; ++v)
      bv[v] = Full ? _mm512_loadu_ps(bp + 16 * v) : _mm512_maskz_loadu_ps(mask[v], bp + 16 * v);
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * a.row_stride]);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      store_row(c.data + (i0 + r) * c.row_stride + j0 + 16 * v, i0 + r, j0 + 16 * v, mask[v], acc[r][v], ep);
}

template <int R> SHIMGEN_AVX512 void nn_rows(const Matrix<const float>& a, const Matrix<const float>& b,
                                             const Matrix<float>& c, int64_t i0, const Epilogue& ep) {
  int64_t j0 = 0;
  for (; c.cols - j0 >= 32; j0 += 32) nn_block<R, 2, true>(a, b, c, i0, j0, ep);
  if (c.cols - j0 > 16) nn_block<R, 2, false>(a, b, c, i0, j0, ep);
  else if (c.cols - j0 == 16) nn_block<R, 1, true>(a, b, c, i0, j0, ep);
  else if (j0 < c.cols) nn_block<R, 1, false>(a, b, c, i0, j0, ep);
}

SHIMGEN_AVX512 void gemm_nn(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                            const Epilogue& ep) {
  int64_t i = 0;
  for (; i + 8 <= c.rows; i += 8) nn_rows<8>(a, b, c, i, ep);
  if (c.rows - i >= 4) {
    nn_rows<4>(a, b, c, i, ep);
    i += 4;
  }
  switch (c.rows - i) {
    case 3: nn_rows<3>(a, b, c, i, ep); break;
    case 2: nn_rows<2>(a, b, c, i, ep); break;
    case 1: nn_rows<1>(a, b, c, i, ep); break;
    default: break;
  }
}

// W^T's row-major copy: dst[kk * n + j] = w[j * ld + kk] for the n x k weight w, 16x16 blocks by
// register transposes, the edges (columns past n16, rows past k16) element by element.
SHIMGEN_AVX512 void pack_nt(const float* w, int64_t k, int64_t n, int64_t ld, float* dst) {
  const int64_t n16 = n - n % 16, k16 = k - k % 16;
  for (int64_t j0 = 0; j0 < n16; j0 += 16)
    for (int64_t k0 = 0; k0 < k16; k0 += 16) transpose16(w + j0 * ld + k0, ld, dst + k0 * n + j0, n);
  for (int64_t j = 0; j < n; ++j) {
    const float* column = w + j * ld;
    for (int64_t kk = j < n16 ? k16 : 0; kk < k; ++kk) dst[kk * n + j] = column[kk];
  }
}

PackedWeightCache& thread_cache() {
  thread_local PackedWeightCache cache(pack_nt);
  return cache;
}

// NT: b transposed (b.row_stride == 1, as in x @ W^T: b's columns are W's rows). Dot products
// along k would need a horizontal sum per result (measured: slower than the BLAS here), so b is
// used row-major: W's packed copy from this thread's cache (or, for an activation or a weight too
// large to keep, a per-thread scratch), and the NN kernel runs on that: k * n copies once per weight against
// m * n * k multiply-adds per call.
SHIMGEN_AVX512 void gemm_nt(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c,
                            const Epilogue& ep, BOperand b_kind) {
  const int64_t n = c.cols, k = a.cols, ld = b.col_stride;
  const float* packed = b_kind == BOperand::kWeight ? thread_cache().get(b.data, k, n, ld) : nullptr;
  if (packed == nullptr) {
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<size_t>(k * n));
    pack_nt(b.data, k, n, ld, scratch.data());
    packed = scratch.data();
  }
  gemm_nn(a, Matrix<const float>{packed, k, n, n, 1}, c, ep);
}

#endif  // SHIMGEN_HAVE_AVX512

}  // namespace

bool small_gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha,
                float beta, const Bias* bias, BOperand b_kind) {
#ifdef SHIMGEN_HAVE_AVX512
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  // Past this the BLAS's blocking and packing pay for themselves (64x128x128: the brief's bound,
  // far below the 256-square GEMMs the benchmark compares with numpy).
  if (m * n * k > 64 * 128 * 128 || k == 0 || !avx512::has_avx512()) return false;
  if (c.cols != 1 && c.col_stride != 1) return false;
  if (bias != nullptr && bias->col_stride != 0 && bias->col_stride != 1 && c.cols != 1) return false;
  // b row-major: OpenBLAS's small-matrix kernel is as fast as gemm_nn here (benchmarks/small_gemm.py:
  // 0.93 .. 1.04x on the block's shapes), so it keeps those; only the transposed layout is taken.
  if (b.cols == 1 || b.col_stride == 1) return false;
  // The packed copy of b stays small (256 KiB at most).
  if ((b.rows == 1 || b.row_stride == 1) && k * n <= 128 * 512) {
    Bias one_column;
    if (bias != nullptr && c.cols == 1) {  // any bias column stride addresses column 0 alone
      one_column = Bias{bias->data, bias->row_stride, 1};
      bias = &one_column;
    }
    gemm_nt(a, b, c, Epilogue{alpha, beta, bias}, b_kind);
    return true;
  }
#else
  (void)a, (void)b, (void)c, (void)alpha, (void)beta, (void)bias, (void)b_kind;
#endif
  return false;
}

PackedWeightCache* small_gemm_weight_cache() {
#ifdef SHIMGEN_HAVE_AVX512
  return avx512::has_avx512() ? &thread_cache() : nullptr;
#else
  return nullptr;
#endif
}

void pack_transposed(const float* w, int64_t k, int64_t n, int64_t ld, float* dst) {
#ifdef SHIMGEN_HAVE_AVX512
  if (avx512::has_avx512()) {
    pack_nt(w, k, n, ld, dst);
    return;
  }
#endif
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) dst[kk * n + j] = w[j * ld + kk];
}

}  // namespace shimgen::rt::cpu
