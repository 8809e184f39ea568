// AVX-512 helpers shared by the runtime's small-shape CPU kernels (cpu_small_gemm.cpp,
// cpu_small_attention.cpp). Nothing here is exported.
//
// The library is built for the x86-64 baseline; these functions carry a target attribute instead,
// and a kernel built from them runs only after has_avx512() said yes at run time (the caller keeps
// a portable path for every other CPU). SHIMGEN_HAVE_AVX512 is defined where such code can be
// compiled at all (x86-64 with GCC or Clang); elsewhere this header defines nothing but
// has_avx512(), which is then false.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SHIMGEN_HAVE_AVX512 1
#define SHIMGEN_AVX512 __attribute__((target("avx512f")))
// GCC 12 reports the deliberately undefined vector inside its own intrinsics (_mm512_undefined_ps
// as the pass-through of unmasked operations) as uninitialized: a known false positive of
// avx512fintrin.h; nothing in the including files reads one.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

namespace shimgen::rt::cpu::avx512 {

// Whether this CPU runs AVX-512F code (asked once).
inline bool has_avx512() {
#ifdef SHIMGEN_HAVE_AVX512
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

#ifdef SHIMGEN_HAVE_AVX512

// Lanes 0 .. count-1 of a 16-lane vector (count clamped to 0 .. 16).
SHIMGEN_AVX512 inline __mmask16 lanes(int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (count < 0 ? 0 : count)) - 1u);
}

// dst[e * dst_ld + j] = r[j][e]: the 16x16 block held in r, transposed, by four rounds of in-lane
// unpacks and 128-bit lane shuffles (64 shuffles per 256 elements; a gather per 16 elements
// measured slower).
SHIMGEN_AVX512 inline void transpose16_store(const __m512 (&r)[16], float* dst, int64_t dst_ld) {
  __m512 t[16], u[16];
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

// dst[e * dst_ld + j] = src[j * src_ld + e] for a 16x16 block.
SHIMGEN_AVX512 inline void transpose16(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
  __m512 r[16];
  for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_ps(src + j * src_ld);
  transpose16_store(r, dst, dst_ld);
}

// The same for a rows x cols corner of the block (rows, cols <= 16), read with masked loads (no
// byte past the corner is touched); the other elements of the 16x16 result are 0.
SHIMGEN_AVX512 inline void transpose16_partial(const float* src, int64_t src_ld, int64_t rows, int64_t cols, float* dst,
                                               int64_t dst_ld) {
  __m512 r[16];
  const __mmask16 mask = lanes(cols);
  for (int j = 0; j < 16; ++j) r[j] = j < rows ? _mm512_maskz_loadu_ps(mask, src + j * src_ld) : _mm512_setzero_ps();
  transpose16_store(r, dst, dst_ld);
}

// e^x lane by lane, for x <= 0 or -inf (softmax arguments: score minus the row maximum), the
// method of the SDPA op's scalar softmax_exp: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2
// split in two so n ln2 is exact), e^r by its Taylor series to r^7 (Horner, fused multiply-adds),
// times 2^n by vscalefps. Below -87 the result is 0 (exactly 0 for -inf); NaN stays NaN.
SHIMGEN_AVX512 inline __m512 exp_nonpositive(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.0f);
  const __mmask16 underflow = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);
  const __m512 clamped = _mm512_max_ps(lo, x);  // (lo, x): a NaN x passes through, as in the scalar code
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(clamped, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), clamped);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  const float coefficients[] = {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f};
  for (float c : coefficients) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  return _mm512_maskz_scalef_ps(static_cast<__mmask16>(~underflow), p, n);
}

// ln x lane by lane for x >= 1 (a softmax's sum: the largest term is e^0): x = m 2^e with m in
// [0.75, 1.5) (getmant/getexp), ln m = 2 atanh(t), t = (m - 1) / (m + 1) in [-1/7, 1/5], by its
// series to t^11 (truncation below 2e-9), plus e ln 2.
SHIMGEN_AVX512 inline __m512 log_ge1(__m512 x) {
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_src);
  const __m512 e = _mm512_getexp_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.0f / 0.75f)));
  const __m512 t = _mm512_div_ps(_mm512_sub_ps(m, _mm512_set1_ps(1.0f)), _mm512_add_ps(m, _mm512_set1_ps(1.0f)));
  const __m512 t2 = _mm512_mul_ps(t, t);
  __m512 p = _mm512_set1_ps(1.0f / 11.0f);
  const float coefficients[] = {1.0f / 9.0f, 1.0f / 7.0f, 1.0f / 5.0f, 1.0f / 3.0f, 1.0f};
  for (float c : coefficients) p = _mm512_fmadd_ps(p, t2, _mm512_set1_ps(c));
  const __m512 ln_m = _mm512_mul_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(2.0f));
  return _mm512_fmadd_ps(e, _mm512_set1_ps(0.693147180559945309f), ln_m);
}

#endif  // SHIMGEN_HAVE_AVX512

}  // namespace shimgen::rt::cpu::avx512
