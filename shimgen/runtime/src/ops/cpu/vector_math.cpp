// SLEEF's vector math ABI (shimgen_runtime/vector_math.h): what a vectorized CPU model imports for
// at::vec's transcendental functions. One row per function below; each row defines the AVX-512
// (f16, d8) and AVX2 (f8, d4) entry points, every lane computed by the C library's function.
//
// A lane loop for all but float exp, tanh and erf: glibc's scalar functions are accurate and need no
// code of ours to prove. Those three are what models call per element in their hot loops (exp:
// softmax, SiLU, sigmoid; tanh: GELU's tanh form; erf: GELU's exact form, in bfloat16/half models),
// so they are vector code (at the end of this file), tested against the correctly rounded result
// on 44 million inputs each; the tests hold every function within 2 ulp of libtorch's SLEEF.
#include "shimgen_runtime/vector_math.h"

#ifdef SHIMGEN_SLEEF_AVX512
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

// GCC 12 flags the deliberately undefined pass-through vector inside its own avx512fintrin.h
// (see cpu_avx512.h): a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace {

// lgamma's sign goes to the global signgam; the reentrant form keeps threads apart.
inline float lgamma_lane_f(float x) {
  int sign = 0;
  return lgammaf_r(x, &sign);
}
inline double lgamma_lane_d(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

}  // namespace

// The vector goes through memory: lanes out, the scalar function per lane, lanes back.
#define SHIMGEN_SLEEF_UNARY(NAME, TARGET, VEC, SCALAR, LANES, FN) \
  extern "C" AOTI_SHIM_EXPORT TARGET VEC NAME(VEC a) {            \
    SCALAR x[LANES];                                              \
    std::memcpy(x, &a, sizeof a);                                 \
    for (int i = 0; i < LANES; ++i) x[i] = FN(x[i]);              \
    std::memcpy(&a, x, sizeof a);                                 \
    return a;                                                     \
  }
#define SHIMGEN_SLEEF_BINARY(NAME, TARGET, VEC, SCALAR, LANES, FN) \
  extern "C" AOTI_SHIM_EXPORT TARGET VEC NAME(VEC a, VEC b) {      \
    SCALAR x[LANES], y[LANES];                                     \
    std::memcpy(x, &a, sizeof a);                                  \
    std::memcpy(y, &b, sizeof b);                                  \
    for (int i = 0; i < LANES; ++i) x[i] = FN(x[i], y[i]);         \
    std::memcpy(&a, x, sizeof a);                                  \
    return a;                                                      \
  }

// The four widths of one function: SLEEF spells them <stem><f16|d8|f8|d4><accuracy suffix>.
#define SHIMGEN_SLEEF_ALL(KIND, STEM, SUFFIX, FLOAT_FN, DOUBLE_FN)                    \
  KIND(Sleef_##STEM##f16##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512, float, 16, FLOAT_FN)  \
  KIND(Sleef_##STEM##d8##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512d, double, 8, DOUBLE_FN) \
  KIND(Sleef_##STEM##f8##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256, float, 8, FLOAT_FN)      \
  KIND(Sleef_##STEM##d4##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256d, double, 4, DOUBLE_FN)
#define SHIMGEN_SLEEF_FLOATS(KIND, STEM, SUFFIX, FLOAT_FN)                           \
  KIND(Sleef_##STEM##f16##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512, float, 16, FLOAT_FN) \
  KIND(Sleef_##STEM##f8##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256, float, 8, FLOAT_FN)
#define SHIMGEN_SLEEF_DOUBLES(KIND, STEM, SUFFIX, DOUBLE_FN)                          \
  KIND(Sleef_##STEM##d8##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512d, double, 8, DOUBLE_FN) \
  KIND(Sleef_##STEM##d4##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256d, double, 4, DOUBLE_FN)

SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, acos, _u10, ::acosf, ::acos)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, acosh, _u10, ::acoshf, ::acosh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, asin, _u10, ::asinf, ::asin)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, asinh, _u10, ::asinhf, ::asinh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, atan, _u10, ::atanf, ::atan)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, atanh, _u10, ::atanhf, ::atanh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, cos, _u10, ::cosf, ::cos)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, cosh, _u10, ::coshf, ::cosh)
SHIMGEN_SLEEF_DOUBLES(SHIMGEN_SLEEF_UNARY, erf, _u10, ::erf)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, erfc, _u15, ::erfcf, ::erfc)
SHIMGEN_SLEEF_DOUBLES(SHIMGEN_SLEEF_UNARY, exp, _u10, ::exp)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, exp2, _u10, ::exp2f, ::exp2)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, expm1, _u10, ::expm1f, ::expm1)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, lgamma, _u10, lgamma_lane_f, lgamma_lane_d)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, log, _u10, ::logf, ::log)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, log10, _u10, ::log10f, ::log10)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, log1p, _u10, ::log1pf, ::log1p)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, log2, _u10, ::log2f, ::log2)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, sin, _u10, ::sinf, ::sin)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, sinh, _u10, ::sinhf, ::sinh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, tan, _u10, ::tanf, ::tan)
SHIMGEN_SLEEF_DOUBLES(SHIMGEN_SLEEF_UNARY, tanh, _u10, ::tanh)
SHIMGEN_SLEEF_FLOATS(SHIMGEN_SLEEF_UNARY, cos, _u35, ::cosf)
SHIMGEN_SLEEF_FLOATS(SHIMGEN_SLEEF_UNARY, sin, _u35, ::sinf)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, atan2, _u10, ::atan2f, ::atan2)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, copysign, , ::copysignf, ::copysign)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, fmod, , ::fmodf, ::fmod)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, hypot, _u05, ::hypotf, ::hypot)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, nextafter, , ::nextafterf, ::nextafter)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_BINARY, pow, _u10, ::powf, ::pow)

// Float exp, 16 and 8 lanes: e^x = 2^n * e^r with n = round(x / ln 2) and r = x - n ln 2 (ln 2 in two
// parts, so r is exact to float precision for every |n| <= 150), |r| <= ln(2)/2; e^r by its Taylor
// series to r^7 (truncation ~5e-9, below float's half ulp), 2^n applied exactly. x is first clamped to
// [-104, 89], beyond which the result is 0 or +inf anyway (a NaN passes through the clamp).
namespace {
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f;  // 15 significant bits: n * kLn2Hi is exact
constexpr float kLn2Lo = 1.42860676533018708e-06f;
constexpr float kTaylor[] = {1.f / 5040, 1.f / 720, 1.f / 120, 1.f / 24, 1.f / 6, 0.5f, 1.f, 1.f};
}  // namespace

extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_expf16_u10(__m512 x) {
  x = _mm512_max_ps(_mm512_set1_ps(-104.f), _mm512_min_ps(_mm512_set1_ps(89.f), x));  // NaN: the 2nd operand
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kTaylor[0]);
  for (int i = 1; i < 8; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kTaylor[i]));
  return _mm512_scalef_ps(p, n);  // p * 2^n, overflow to inf and gradual underflow included
}

// AVX2 has no scalef: 2^n is built in the exponent field, in two halves so that n down to -150 and
// up to 128 stay within normal powers of two (each half is in [-75, 64]).
extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_expf8_u10(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(-104.f), _mm256_min_ps(_mm256_set1_ps(89.f), x));
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kTaylor[0]);
  for (int i = 1; i < 8; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kTaylor[i]));
  const __m256i k = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(k, 1), rest = _mm256_sub_epi32(k, half);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 first = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  const __m256 second = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(rest, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, first), second);
}

// Float tanh and erf, 16 and 8 lanes. SLEEF's bound for them is 1 ulp, and float arithmetic spends
// it on its own roundings (1 - 2/(e^2a + 1) in float is 2 ulp off at a = 0.5 even with glibc's expf,
// worse below). So each half of the vector is widened to double, where every step's rounding is
// ~2^-50 and the polynomials' errors are below 2^-30 (scripts/fit_vector_math.py fits them and
// prints their errors), and rounded to float once: the correctly rounded result except within a
// few hundredths of an ulp of a tie. Both functions are odd: computed on |x|, x's sign put back
// (NaN and -0 included).
namespace {
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLog2eD = 1.4426950408889634;
// (e^r - 1) / r, |r| <= ln2/2, relative error 2^-35.5, none at r = 0 (1 + r/2 + ... exactly).
constexpr double kExpm1Quotient[] = {2.4851288151127619e-05,
                                     0.00019890980869750327,
                                     0.0013888866495891856,
                                     0.008333310934448869,
                                     0.041666666681610176,
                                     0.16666666681614256,
                                     0.5,
                                     1};
// erf(a) / a as a polynomial in u = a^2, a in [0, 1], relative error 2^-32.6, none at a = 0 (2/sqrt(pi)).
constexpr double kErfSmall[] = {-1.0216747929883539e-05, 0.00011451736838144727, -0.00085085452812915148,
                                0.0052226111275789043,   -0.026865945307077137,  0.11283790270101063,
                                -0.37612638888904132,    1.1283791670955126};
// e^(a^2) erfc(a), smooth and slowly varying (0.43 to 0.14), as a polynomial in a - 2.5, a in [1, 4];
// e^(-a^2) times its error is below 2^-30.5, against erf's ulp of 2^-24 there.
constexpr double kErfcScaled[] = {1.0301512994682683e-07,  -4.264734348150259e-07,  9.7639015721739022e-07,
                                  -3.7472737729690635e-06, 1.6114106393804864e-05,  -5.9523157031741315e-05,
                                  0.0002109179637713861,   -0.00073315296429098521, 0.0024670657614729186,
                                  -0.0080016938875954961,  0.024937994751043007,    -0.074347336742040679,
                                  0.21080636406114359};
constexpr double kErfcCenter = 2.5;
constexpr double kErfSmallEnd = 1;
// From here on the float result is 1: tanh(a) > 1 - 2^-25 beyond 9.01, erf(a) beyond 3.92. The
// clamps keep e^2a finite and the erfc polynomial on its interval; inf becomes 1 through them.
constexpr double kTanhSaturate = 10;
constexpr double kErfSaturate = 4;
}  // namespace

// ---- AVX-512 ----

namespace {

template <size_t N> SHIMGEN_SLEEF_AVX512 inline __m512d horner(__m512d t, const double (&c)[N]) {
  __m512d p = _mm512_set1_pd(c[0]);
  for (size_t i = 1; i < N; ++i) p = _mm512_fmadd_pd(p, t, _mm512_set1_pd(c[i]));
  return p;
}

// e^y as 2^n (1 + em1), em1 = e^r - 1 kept apart so expm1 loses nothing to cancellation. |y| <= 20
// here: one fma gives r = y - n ln2 to double rounding, and ln2's own rounding times |n| <= 29 is
// ~2^-49, far below what float needs.
struct ExpParts512 { __m512d n, em1; };
SHIMGEN_SLEEF_AVX512 inline ExpParts512 exp_parts(__m512d y) {
  const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(kLog2eD)), _MM_FROUND_TO_NEAREST_INT);
  const __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(kLn2), y);
  return {n, _mm512_mul_pd(r, horner(r, kExpm1Quotient))};
}

// tanh(a) = E / (E + 2), E = e^2a - 1 = 2^n em1 + (2^n - 1): relative accuracy at every a >= 0, the
// subnormal floats included (there n = 0 and E = em1 = 2a (1 + ...)).
SHIMGEN_SLEEF_AVX512 inline __m512d tanh_nonnegative(__m512d a) {
  const __m512d one = _mm512_set1_pd(1);
  a = _mm512_min_pd(_mm512_set1_pd(kTanhSaturate), a);  // NaN: the 2nd operand
  const ExpParts512 e = exp_parts(_mm512_add_pd(a, a));
  const __m512d em1 = _mm512_add_pd(_mm512_scalef_pd(e.em1, e.n), _mm512_sub_pd(_mm512_scalef_pd(one, e.n), one));
  return _mm512_div_pd(em1, _mm512_add_pd(em1, _mm512_set1_pd(2)));
}

// erf(a) = a P(a^2) below 1; beyond, 1 - e^(-a^2) R(a), the e^(-a^2) from exp_parts (a^2 is exact:
// a is a float). A NaN fails the a < 1 test and comes out of the clamp of the second form.
SHIMGEN_SLEEF_AVX512 inline __m512d erf_nonnegative(__m512d a) {
  const __m512d one = _mm512_set1_pd(1);
  const __m512d small = _mm512_mul_pd(a, horner(_mm512_mul_pd(a, a), kErfSmall));
  const __m512d b = _mm512_min_pd(_mm512_set1_pd(kErfSaturate), a);
  const ExpParts512 e = exp_parts(_mm512_sub_pd(_mm512_setzero_pd(), _mm512_mul_pd(b, b)));
  const __m512d gauss = _mm512_scalef_pd(_mm512_add_pd(e.em1, one), e.n);
  const __m512d scaled = horner(_mm512_sub_pd(b, _mm512_set1_pd(kErfcCenter)), kErfcScaled);
  const __m512d large = _mm512_fnmadd_pd(gauss, scaled, one);
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_set1_pd(kErfSmallEnd), _CMP_LT_OQ), large, small);
}

// An odd function of 16 floats through its double form on |x|: two halves of 8, each rounded once.
// (AVX-512F alone: no AVX-512DQ extract or float bitwise ops, hence the casts.)
template <__m512d (*F)(__m512d)> SHIMGEN_SLEEF_AVX512 inline __m512 odd_in_double(__m512 x) {
  const __m512 a = _mm512_abs_ps(x);
  const __m256 low = _mm512_castps512_ps256(a);
  const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
  const __m256d low_result = _mm256_castps_pd(_mm512_cvtpd_ps(F(_mm512_cvtps_pd(low))));
  const __m256d high_result = _mm256_castps_pd(_mm512_cvtpd_ps(F(_mm512_cvtps_pd(high))));
  const __m512i result = _mm512_castpd_si512(_mm512_insertf64x4(_mm512_castpd256_pd512(low_result), high_result, 1));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  return _mm512_castsi512_ps(_mm512_or_si512(result, sign));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_tanhf16_u10(__m512 x) {
  return odd_in_double<tanh_nonnegative>(x);
}
extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_erff16_u10(__m512 x) {
  return odd_in_double<erf_nonnegative>(x);
}

// ---- AVX2: the same steps on 4 doubles; 2^n is built in the exponent field (no scalef), n is
// within [-23, 29] here ----

namespace {

template <size_t N> SHIMGEN_SLEEF_AVX2 inline __m256d horner(__m256d t, const double (&c)[N]) {
  __m256d p = _mm256_set1_pd(c[0]);
  for (size_t i = 1; i < N; ++i) p = _mm256_fmadd_pd(p, t, _mm256_set1_pd(c[i]));
  return p;
}

SHIMGEN_SLEEF_AVX2 inline __m256d pow2(__m256d n) {
  const __m256i k = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n));
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k, _mm256_set1_epi64x(1023)), 52));
}

struct ExpParts256 {
  __m256d scale, em1;  // 2^n, e^r - 1
};
SHIMGEN_SLEEF_AVX2 inline ExpParts256 exp_parts(__m256d y) {
  const __m256d n =
      _mm256_round_pd(_mm256_mul_pd(y, _mm256_set1_pd(kLog2eD)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(kLn2), y);
  return {pow2(n), _mm256_mul_pd(r, horner(r, kExpm1Quotient))};
}

SHIMGEN_SLEEF_AVX2 inline __m256d tanh_nonnegative(__m256d a) {
  const __m256d one = _mm256_set1_pd(1);
  a = _mm256_min_pd(_mm256_set1_pd(kTanhSaturate), a);
  const ExpParts256 e = exp_parts(_mm256_add_pd(a, a));
  const __m256d em1 = _mm256_fmadd_pd(e.scale, e.em1, _mm256_sub_pd(e.scale, one));
  return _mm256_div_pd(em1, _mm256_add_pd(em1, _mm256_set1_pd(2)));
}

SHIMGEN_SLEEF_AVX2 inline __m256d erf_nonnegative(__m256d a) {
  const __m256d one = _mm256_set1_pd(1);
  const __m256d small = _mm256_mul_pd(a, horner(_mm256_mul_pd(a, a), kErfSmall));
  const __m256d b = _mm256_min_pd(_mm256_set1_pd(kErfSaturate), a);
  const ExpParts256 e = exp_parts(_mm256_sub_pd(_mm256_setzero_pd(), _mm256_mul_pd(b, b)));
  const __m256d gauss = _mm256_fmadd_pd(e.scale, e.em1, e.scale);
  const __m256d scaled = horner(_mm256_sub_pd(b, _mm256_set1_pd(kErfcCenter)), kErfcScaled);
  const __m256d large = _mm256_fnmadd_pd(gauss, scaled, one);
  return _mm256_blendv_pd(large, small, _mm256_cmp_pd(a, _mm256_set1_pd(kErfSmallEnd), _CMP_LT_OQ));
}

template <__m256d (*F)(__m256d)> SHIMGEN_SLEEF_AVX2 inline __m256 odd_in_double(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.f);
  const __m256 a = _mm256_andnot_ps(sign, x);
  const __m128 low = _mm256_cvtpd_ps(F(_mm256_cvtps_pd(_mm256_castps256_ps128(a))));
  const __m128 high = _mm256_cvtpd_ps(F(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1))));
  return _mm256_or_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1), _mm256_and_ps(sign, x));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_tanhf8_u10(__m256 x) {
  return odd_in_double<tanh_nonnegative>(x);
}
extern "C" AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_erff8_u10(__m256 x) {
  return odd_in_double<erf_nonnegative>(x);
}

#endif  // SHIMGEN_SLEEF_AVX512
