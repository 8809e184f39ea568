/*
 * SLEEF's vector math ABI, served by the runtime. A CPU model that AOTInductor vectorized
 * (CPU_CAPABILITY_AVX512 or _AVX2) calls at::vec, whose transcendental functions (exp, log, tanh,
 * erf, pow, ...) are SLEEF calls: the model's .so imports Sleef_expf16_u10 & co. with no DT_NEEDED
 * for them, since libtorch_cpu exports SLEEF. With link_libtorch=False nobody else provides them,
 * so the model would not load without libtorch, and beside libtorch it would bind there. These are
 * shims like the aoti_torch_* ones: exported under the prefix, and `shimgen prefix-imports` renames
 * a model's Sleef_* imports to them (the bundled config's patterns include Sleef_*).
 *
 * The names are the x86-64 ones torch's at::vec (vec256/vec512) calls. Each lane is computed by the
 * C library's function of the same name, except float exp, tanh and erf (vector code of the
 * runtime's own, within 1 ulp of the exact result); tests/integration/test_vector_math.py holds every
 * one within 2 ulp of libtorch's SLEEF (the suffix is SLEEF's own bound: _u10 1.0 ulp, _u05, _u15,
 * _u35). The AVX-512 functions run on any CPU with AVX-512F, the AVX2 ones on any with AVX2 and
 * FMA; a model calls only those of the ISA it was compiled for. Other architectures (NEON, SVE, VSX)
 * are not served.
 *
 * C and C++; the vector types come from <immintrin.h>. Declarations only on x86-64 with GCC/Clang.
 */
#ifndef SHIMGEN_RUNTIME_VECTOR_MATH_H_
#define SHIMGEN_RUNTIME_VECTOR_MATH_H_

#include "shimgen_runtime/types.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* The vector arguments travel in zmm/ymm registers, as the models built with -mavx512f/-mavx2 pass them. */
#define SHIMGEN_SLEEF_AVX512 __attribute__((target("avx512f")))
#define SHIMGEN_SLEEF_AVX2 __attribute__((target("avx2,fma")))

#ifdef __cplusplus
extern "C" {
#endif

/* __m512: AVX-512 (inductor CPU_CAPABILITY_AVX512) */
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_acosf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_acoshf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_asinf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_asinhf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_atanf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_atanhf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_cosf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_cosf16_u35(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_coshf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_erff16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_erfcf16_u15(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_exp2f16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_expf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_expm1f16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_lgammaf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_log10f16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_log1pf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_log2f16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_logf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_sinf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_sinf16_u35(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_sinhf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_tanf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_tanhf16_u10(__m512 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_atan2f16_u10(__m512 a, __m512 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_copysignf16(__m512 a, __m512 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_fmodf16(__m512 a, __m512 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_hypotf16_u05(__m512 a, __m512 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_nextafterf16(__m512 a, __m512 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512 Sleef_powf16_u10(__m512 a, __m512 b);

/* __m512d: AVX-512 (inductor CPU_CAPABILITY_AVX512) */
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_acosd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_acoshd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_asind8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_asinhd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_atand8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_atanhd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_cosd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_coshd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_erfd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_erfcd8_u15(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_exp2d8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_expd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_expm1d8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_lgammad8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_log10d8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_log1pd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_log2d8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_logd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_sind8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_sinhd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_tand8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_tanhd8_u10(__m512d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_atan2d8_u10(__m512d a, __m512d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_copysignd8(__m512d a, __m512d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_fmodd8(__m512d a, __m512d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_hypotd8_u05(__m512d a, __m512d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_nextafterd8(__m512d a, __m512d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX512 __m512d Sleef_powd8_u10(__m512d a, __m512d b);

/* __m256: AVX2 (CPU_CAPABILITY_AVX2) */
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_acosf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_acoshf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_asinf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_asinhf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_atanf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_atanhf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_cosf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_cosf8_u35(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_coshf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_erff8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_erfcf8_u15(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_exp2f8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_expf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_expm1f8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_lgammaf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_log10f8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_log1pf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_log2f8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_logf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_sinf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_sinf8_u35(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_sinhf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_tanf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_tanhf8_u10(__m256 a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_atan2f8_u10(__m256 a, __m256 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_copysignf8(__m256 a, __m256 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_fmodf8(__m256 a, __m256 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_hypotf8_u05(__m256 a, __m256 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_nextafterf8(__m256 a, __m256 b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256 Sleef_powf8_u10(__m256 a, __m256 b);

/* __m256d: AVX2 (CPU_CAPABILITY_AVX2) */
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_acosd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_acoshd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_asind4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_asinhd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_atand4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_atanhd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_cosd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_coshd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_erfd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_erfcd4_u15(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_exp2d4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_expd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_expm1d4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_lgammad4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_log10d4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_log1pd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_log2d4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_logd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_sind4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_sinhd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_tand4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_tanhd4_u10(__m256d a);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_atan2d4_u10(__m256d a, __m256d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_copysignd4(__m256d a, __m256d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_fmodd4(__m256d a, __m256d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_hypotd4_u05(__m256d a, __m256d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_nextafterd4(__m256d a, __m256d b);
AOTI_SHIM_EXPORT SHIMGEN_SLEEF_AVX2 __m256d Sleef_powd4_u10(__m256d a, __m256d b);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* x86-64 */
#endif /* SHIMGEN_RUNTIME_VECTOR_MATH_H_ */
