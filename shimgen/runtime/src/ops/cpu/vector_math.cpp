// SLEEF's vector math ABI (shimgen_runtime/vector_math.h): what a vectorized CPU model imports for
// at::vec's transcendental functions. One row per function below; each row defines the AVX-512
// (f16, d8) and AVX2 (f8, d4) entry points, every lane computed by the C library's function.
//
// A lane loop for all but float exp: glibc's scalar functions are accurate and need no code of ours
// to prove. Float exp is the one models call per element in their hot loops (softmax, SiLU,
// sigmoid, GELU's tanh form goes through it too), so it is vector code (exp_float below); the
// tests hold it, like the rest, within 2 ulp of libtorch's SLEEF.
#include "shimgen_runtime/vector_math.h"

#ifdef SHIMGEN_SLEEF_AVX512
#include <cmath>
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
  extern "C" AOTI_SHIM_EXPORT TARGET VEC NAME(VEC a) {              \
    SCALAR x[LANES];                                                \
    std::memcpy(x, &a, sizeof a);                                   \
    for (int i = 0; i < LANES; ++i) x[i] = FN(x[i]);                \
    std::memcpy(&a, x, sizeof a);                                   \
    return a;                                                       \
  }
#define SHIMGEN_SLEEF_BINARY(NAME, TARGET, VEC, SCALAR, LANES, FN) \
  extern "C" AOTI_SHIM_EXPORT TARGET VEC NAME(VEC a, VEC b) {       \
    SCALAR x[LANES], y[LANES];                                      \
    std::memcpy(x, &a, sizeof a);                                   \
    std::memcpy(y, &b, sizeof b);                                   \
    for (int i = 0; i < LANES; ++i) x[i] = FN(x[i], y[i]);          \
    std::memcpy(&a, x, sizeof a);                                   \
    return a;                                                       \
  }

// The four widths of one function: SLEEF spells them <stem><f16|d8|f8|d4><accuracy suffix>.
#define SHIMGEN_SLEEF_ALL(KIND, STEM, SUFFIX, FLOAT_FN, DOUBLE_FN)                                 \
  KIND(Sleef_##STEM##f16##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512, float, 16, FLOAT_FN)             \
  KIND(Sleef_##STEM##d8##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512d, double, 8, DOUBLE_FN)            \
  KIND(Sleef_##STEM##f8##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256, float, 8, FLOAT_FN)                 \
  KIND(Sleef_##STEM##d4##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256d, double, 4, DOUBLE_FN)
#define SHIMGEN_SLEEF_FLOATS(KIND, STEM, SUFFIX, FLOAT_FN)                             \
  KIND(Sleef_##STEM##f16##SUFFIX, SHIMGEN_SLEEF_AVX512, __m512, float, 16, FLOAT_FN) \
  KIND(Sleef_##STEM##f8##SUFFIX, SHIMGEN_SLEEF_AVX2, __m256, float, 8, FLOAT_FN)

SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, acos, _u10, ::acosf, ::acos)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, acosh, _u10, ::acoshf, ::acosh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, asin, _u10, ::asinf, ::asin)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, asinh, _u10, ::asinhf, ::asinh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, atan, _u10, ::atanf, ::atan)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, atanh, _u10, ::atanhf, ::atanh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, cos, _u10, ::cosf, ::cos)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, cosh, _u10, ::coshf, ::cosh)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, erf, _u10, ::erff, ::erf)
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, erfc, _u15, ::erfcf, ::erfc)
SHIMGEN_SLEEF_UNARY(Sleef_expd8_u10, SHIMGEN_SLEEF_AVX512, __m512d, double, 8, ::exp)
SHIMGEN_SLEEF_UNARY(Sleef_expd4_u10, SHIMGEN_SLEEF_AVX2, __m256d, double, 4, ::exp)
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
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, tanh, _u10, ::tanhf, ::tanh)
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
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
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

#endif  // SHIMGEN_SLEEF_AVX512
