// Scaled dot-product attention for small float32 shapes on AVX-512 (what SDPA's CPU op runs first;
// cpu_kernels.h): sixteen query rows at a time, one per vector lane. For each key j the scores of
// the sixteen rows are one vector (sum over e of k[j, e] broadcast times q[rows, e]), so the row
// maximum and the row sum of the softmax are lane-wise max and add over the keys (no horizontal
// reductions), the exponentials are vector code, and the value product accumulates one vector per
// output column (broadcast v[j, e] times the sixteen probabilities). The general path (two GEMMs
// per head through the small kernel and OpenBLAS, a scalar softmax) paid a call, a scratch copy
// and a dispatch per head; a transformer block's heads (16 queries, 16 keys, 8 dims) are far too
// small for that to pay.
//
// Semantics are the general path's: causal is top-left aligned (row i sees keys 0 .. i), a bool
// mask hides keys where it is false, a float mask is added, a row that sees no key gives zeros and
// logsumexp -inf. Shapes past the bounds below, other CPUs and float64 take the general path.
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu_avx512.h"
#include "cpu_kernels.h"

namespace shimgen::rt::cpu {
namespace {

// Keys and head dims up to these (scratch: keys x 16 scores, dims x 16 queries and outputs).
constexpr int64_t kMaxKeys = 256;
constexpr int64_t kMaxDim = 256;
// Fewer query rows than this leave most lanes idle: the general path keeps them (a decode step).
constexpr int64_t kMinRows = 8;

#ifdef SHIMGEN_HAVE_AVX512

using avx512::exp_nonpositive;
using avx512::lanes;
using avx512::log_ge1;
using avx512::transpose16;
using avx512::transpose16_partial;

// One (batch, head): element (i, e) of q at q[i * q_row + e * q_col], and so on; the mask's element
// (i, j) at byte mask + (i * m_row + j * m_col) * m_item.
struct Head {
  const float* q;
  int64_t q_row, q_col;
  const float* k;
  int64_t k_row, k_col;
  const float* v;
  int64_t v_row, v_col;
  float* out;
  int64_t o_row, o_col;
  float* lse;
  int64_t l_row;
  const char* mask;
  int64_t m_row, m_col, m_item;
  bool bool_mask;
};

struct Dims {
  int64_t keys, dim, value_dim;
  bool causal;
  float scale;
};

// Per-thread scratch, sized once for the largest shape seen: scores [keys][16], q^T [dim16][16],
// out^T [value_dim16][16], and a 16x16 block for the transposes back.
struct Scratch {
  std::vector<float> scores, qt, ot, block;
  void fit(int64_t keys, int64_t dim, int64_t value_dim) {
    auto grow = [](std::vector<float>& v, int64_t n) {
      if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
    };
    grow(scores, keys * 16);
    grow(qt, (dim + 15) / 16 * 16 * 16);
    grow(ot, (value_dim + 15) / 16 * 16 * 16);
    grow(block, 256);
  }
};

// The mask's value (float) or visibility (bool) for key j across the block's rows.
SHIMGEN_AVX512 inline __m512 add_mask(const Head& h, int64_t i0, int64_t j, __mmask16 rows, __m512 s,
                                      __mmask16* visible) {
  const char* base = h.mask + (i0 * h.m_row + j * h.m_col) * h.m_item;
  if (h.bool_mask) {
    __mmask16 bits = 0;
    for (int i = 0; i < 16; ++i)
      if ((rows >> i & 1) && *(base + i * h.m_row) != 0) bits = static_cast<__mmask16>(bits | (1u << i));
    *visible = static_cast<__mmask16>(*visible & bits);
    return s;
  }
  float values[16] = {};
  const float* f = reinterpret_cast<const float*>(base);
  for (int i = 0; i < 16; ++i)
    if (rows >> i & 1) values[i] = f[i * h.m_row];
  return _mm512_add_ps(s, _mm512_loadu_ps(values));
}

// out^T[e0 .. e0+T) of the block: out^T[e] = sum over keys j of v[j, e] * p[j] (p: the sixteen rows'
// probabilities of key j), times inv (1 / row sum, or 0 for a row that sees no key).
template <int T> SHIMGEN_AVX512 inline void value_columns(const Head& h, int64_t keys, int64_t e0, const float* p,
                                                          __m512 inv, float* ot) {
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t j = 0; j < keys; ++j) {
    const __m512 pj = _mm512_loadu_ps(p + j * 16);
    const float* vr = h.v + j * h.v_row + e0 * h.v_col;
    for (int t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(_mm512_set1_ps(vr[t * h.v_col]), pj, acc[t]);
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(ot + (e0 + t) * 16, _mm512_mul_ps(acc[t], inv));
}

// Query rows i0 .. i0+rows-1 (rows <= 16) of one head.
SHIMGEN_AVX512 void attend_block(const Head& h, const Dims& d, int64_t i0, int64_t rows, Scratch& w) {
  const __mmask16 valid = lanes(rows);
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  // q^T: qt[e * 16 + i] = q[i0 + i, e].
  float* qt = w.qt.data();
  if (h.q_col == 1) {
    for (int64_t e0 = 0; e0 < d.dim; e0 += 16)
      transpose16_partial(h.q + i0 * h.q_row + e0, h.q_row, rows, d.dim - e0 < 16 ? d.dim - e0 : 16, qt + e0 * 16, 16);
  } else {
    for (int64_t e = 0; e < d.dim; ++e)
      for (int64_t i = 0; i < 16; ++i) qt[e * 16 + i] = i < rows ? h.q[(i0 + i) * h.q_row + e * h.q_col] : 0.0f;
  }
  // Scores, masked keys -inf, and the row maxima. Causal: keys past the block's last row are
  // hidden from all its rows, and key j from the rows before it. Four keys at a time: four
  // independent accumulator chains share each q^T load.
  const int64_t keys = d.causal && i0 + rows < d.keys ? i0 + rows : d.keys;
  float* scores = w.scores.data();
  __m512 best = neg_inf;
  auto finish = [&](int64_t j, __m512 acc) SHIMGEN_AVX512 {
    __m512 s = _mm512_mul_ps(acc, _mm512_set1_ps(d.scale));
    __mmask16 visible = valid;
    if (d.causal && j > i0) visible = static_cast<__mmask16>(visible & ~lanes(j - i0));
    if (h.mask != nullptr) s = add_mask(h, i0, j, valid, s, &visible);
    s = _mm512_mask_mov_ps(neg_inf, visible, s);
    _mm512_storeu_ps(scores + j * 16, s);
    best = _mm512_max_ps(best, s);
  };
  int64_t j = 0;
  for (; j + 4 <= keys; j += 4) {
    const float* k0 = h.k + j * h.k_row;
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int64_t e = 0; e < d.dim; ++e) {
      const __m512 qv = _mm512_loadu_ps(qt + e * 16);
      const float* ke = k0 + e * h.k_col;
      for (int t = 0; t < 4; ++t) acc[t] = _mm512_fmadd_ps(_mm512_set1_ps(ke[t * h.k_row]), qv, acc[t]);
    }
    for (int t = 0; t < 4; ++t) finish(j + t, acc[t]);
  }
  for (; j < keys; ++j) {
    const float* kr = h.k + j * h.k_row;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t e = 0; e < d.dim; ++e)
      acc = _mm512_fmadd_ps(_mm512_set1_ps(kr[e * h.k_col]), _mm512_loadu_ps(qt + e * 16), acc);
    finish(j, acc);
  }
  // Probabilities (unnormalised) and row sums; a row with no visible key keeps shift 0 (its
  // scores are all -inf, so every term is 0).
  const __m512 shift = _mm512_mask_mov_ps(best, _mm512_cmp_ps_mask(best, neg_inf, _CMP_EQ_OQ), _mm512_setzero_ps());
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < keys; ++j) {
    const __m512 p = exp_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(scores + j * 16), shift));
    _mm512_storeu_ps(scores + j * 16, p);
    sum = _mm512_add_ps(sum, p);
  }
  const __mmask16 seen = _mm512_cmp_ps_mask(sum, _mm512_setzero_ps(), _CMP_GT_OQ);
  const __m512 inv = _mm512_maskz_div_ps(seen, _mm512_set1_ps(1.0f), sum);
  const __m512 log_sum = log_ge1(_mm512_max_ps(sum, _mm512_set1_ps(1.0f)));  // (sum >= 1 where seen)
  const __m512 lse = _mm512_mask_mov_ps(neg_inf, seen, _mm512_add_ps(best, log_sum));
  // The value product, eight output columns at a time.
  float* ot = w.ot.data();
  int64_t e0 = 0;
  for (; e0 + 8 <= d.value_dim; e0 += 8) value_columns<8>(h, keys, e0, scores, inv, ot);
  if (d.value_dim - e0 >= 4) {
    value_columns<4>(h, keys, e0, scores, inv, ot);
    e0 += 4;
  }
  for (; e0 < d.value_dim; ++e0) value_columns<1>(h, keys, e0, scores, inv, ot);
  // Back to rows: out[i0 + i, e] = ot[e * 16 + i].
  float* block = w.block.data();
  for (int64_t c0 = 0; c0 < d.value_dim; c0 += 16) {
    const int64_t cols = d.value_dim - c0 < 16 ? d.value_dim - c0 : 16;
    transpose16_partial(ot + c0 * 16, 16, cols, 16, block, 16);
    for (int64_t i = 0; i < rows; ++i) {
      float* o = h.out + (i0 + i) * h.o_row + c0 * h.o_col;
      if (h.o_col == 1) {
        _mm512_mask_storeu_ps(o, lanes(cols), _mm512_loadu_ps(block + i * 16));
      } else {
        for (int64_t c = 0; c < cols; ++c) o[c * h.o_col] = block[i * 16 + c];
      }
    }
  }
  float l[16];
  _mm512_storeu_ps(l, lse);
  for (int64_t i = 0; i < rows; ++i) h.lse[(i0 + i) * h.l_row] = l[i];
}

SHIMGEN_AVX512 void attend_all(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                               float scale, const Tensor& out, const Tensor& lse) {
  const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2];
  const Dims d{k.sizes[2], q.sizes[3], v.sizes[3], causal, scale};
  thread_local Scratch w;
  w.fit(d.keys, d.dim, d.value_dim);
  // The mask broadcast to [B, H, L, S]: right-aligned, size-1 dimensions repeat (stride 0).
  int64_t ms[4] = {0, 0, 0, 0};
  if (mask != nullptr) {
    const size_t md = mask->sizes.size();
    for (size_t i = 0; i < md; ++i) ms[4 - md + i] = mask->sizes[i] == 1 ? 0 : mask->strides[i];
  }
  const float* qp = reinterpret_cast<const float*>(q.data());
  const float* kp = reinterpret_cast<const float*>(k.data());
  const float* vp = reinterpret_cast<const float*>(v.data());
  float* op = reinterpret_cast<float*>(out.data());
  float* lp = reinterpret_cast<float*>(lse.data());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t hh = 0; hh < H; ++hh) {
      const int64_t item = mask != nullptr ? static_cast<int64_t>(mask->itemsize()) : 0;
      const Head h{qp + b * q.strides[0] + hh * q.strides[1],
                   q.strides[2],
                   q.strides[3],
                   kp + b * k.strides[0] + hh * k.strides[1],
                   k.strides[2],
                   k.strides[3],
                   vp + b * v.strides[0] + hh * v.strides[1],
                   v.strides[2],
                   v.strides[3],
                   op + b * out.strides[0] + hh * out.strides[1],
                   out.strides[2],
                   out.strides[3],
                   lp + b * lse.strides[0] + hh * lse.strides[1],
                   lse.strides[2],
                   mask != nullptr ? mask->data() + (b * ms[0] + hh * ms[1]) * item : nullptr,
                   ms[2],
                   ms[3],
                   item,
                   mask != nullptr && mask->dtype == kBool};
      for (int64_t i0 = 0; i0 < L; i0 += 16) attend_block(h, d, i0, L - i0 < 16 ? L - i0 : 16, w);
    }
  }
}

#endif  // SHIMGEN_HAVE_AVX512

}  // namespace

bool small_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal, double scale,
                     const Tensor& out, const Tensor& lse) {
#ifdef SHIMGEN_HAVE_AVX512
  if (!avx512::has_avx512() || q.dtype != kFloat32 || lse.dtype != kFloat32) return false;
  if (q.sizes[2] < kMinRows || k.sizes[2] > kMaxKeys || q.sizes[3] > kMaxDim || v.sizes[3] > kMaxDim) return false;
  if (mask != nullptr && mask->dtype != kBool && mask->dtype != kFloat32) return false;
  attend_all(q, k, v, mask, causal, static_cast<float>(scale), out, lse);
  return true;
#else
  (void)q, (void)k, (void)v, (void)mask, (void)causal, (void)scale, (void)out, (void)lse;
  return false;
#endif
}

}  // namespace shimgen::rt::cpu
