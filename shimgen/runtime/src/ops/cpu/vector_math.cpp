// SLEEF's vector math ABI (shimgen_runtime/vector_math.h): what a vectorized CPU model imports for
// at::vec's transcendental functions. One row per function below; each row defines the AVX-512
// (f16, d8) and AVX2 (f8, d4) entry points, every lane computed by the C library's function.
//
// A lane loop, not vector code: these run inside the model's own loops (softmax, SiLU, GELU), so a
// vector exp would be faster, but glibc's scalar functions are accurate and need no code of ours to
// prove; the names are what matters for loading, and the values for matching eager.
#include "shimgen_runtime/vector_math.h"

#ifdef SHIMGEN_SLEEF_AVX512
#include <cmath>
#include <cstring>

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
SHIMGEN_SLEEF_ALL(SHIMGEN_SLEEF_UNARY, exp, _u10, ::expf, ::exp)
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

#endif  // SHIMGEN_SLEEF_AVX512
