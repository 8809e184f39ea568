// The elementwise special functions the proxy executor serves (proxy_ops.h): the ops of torch's
// pointwise_overrides_data with no Triton implementation (torch/_inductor/codegen/common.py), which
// AOTInductor leaves to aten on CUDA and reaches through the proxy executor (digamma, polygamma,
// special_ndtri, ...). One table (kFunctions: target, arity, the scalar function) and one strided,
// broadcasting host walk. The scalar functions are torch's own (third_party/torch_math.h, vendored
// from ATen/native/Math.h), called as torch's CPU kernels call them: float32 in float (float
// accumulating in double where torch's CPU acc_type does), float64 in double, bfloat16/float16
// computed in float and rounded. Output: torch's elementwise layout, the operands' dtype.
#include <cmath>
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"
#include "third_party/torch_math.h"

// torch's polynomial recurrences (inlined here) leave a variable unset on paths that return early.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace shimgen::rt::proxy_ops {
namespace {

namespace tm = torch_math;
using cpu::BFloat16;
using cpu::Half;

template <class T>
T ndtr(T x) {  // torch's CPU ndtr_kernel
  const T x_sqrt_2 = x * static_cast<T>(M_SQRT1_2);
  return (1 + std::erf(x_sqrt_2)) * static_cast<T>(0.5);
}

template <class T>
T polygamma(int64_t n, T x) {  // torch's CPU polygamma_kernel: digamma, trigamma, then the series
  if (n == 0) return tm::calc_digamma(x);
  if (n == 1) return tm::trigamma(x);
  return tm::calc_polygamma<T, false>(x, static_cast<int>(n));
}

}  // namespace

// One function at float and double. Unary ones ignore b; polygamma takes its order as n.
struct SpecialFunction {
  const char* target;
  int arity;  // 1: (self), 2: (self, other) or (x, n), 0: polygamma (n, self)
  const char* a;
  const char* b;
  float (*f32)(int64_t, float, float);
  double (*f64)(int64_t, double, double);
};

// An entry whose float and double functions are one expression of x (and y).
#define SHIMGEN_UNARY(target, arg, expr)                                         \
  SpecialFunction {                                                              \
    target, 1, arg, nullptr, [](int64_t, float x, float) -> float { return expr; }, \
        [](int64_t, double x, double) -> double { return expr; }                 \
  }
#define SHIMGEN_BINARY(target, arg_a, arg_b, expr)                                       \
  SpecialFunction {                                                                      \
    target, 2, arg_a, arg_b, [](int64_t, float x, float y) -> float { return expr; },    \
        [](int64_t, double x, double y) -> double { return expr; }                       \
  }

// Policy as data: what is served, with which arguments, computed how (torch's CPU kernel's call).
const SpecialFunction kFunctions[] = {
    SHIMGEN_UNARY("aten::digamma", "self", tm::calc_digamma(x)),
    SpecialFunction{"aten::polygamma", 0, "self", nullptr,
                    [](int64_t n, float x, float) { return polygamma(n, x); },
                    [](int64_t n, double x, double) { return polygamma(n, x); }},
    SHIMGEN_UNARY("aten::special_ndtri", "self", tm::calc_ndtri(x)),
    SHIMGEN_UNARY("aten::special_ndtr", "self", ndtr(x)),
    SHIMGEN_UNARY("aten::special_log_ndtr", "self", tm::calc_log_ndtr(x)),
    SHIMGEN_UNARY("aten::special_i0e", "self", tm::calc_i0e(x)),
    SHIMGEN_UNARY("aten::special_i1e", "self", tm::calc_i1e(x)),
    SHIMGEN_UNARY("aten::special_airy_ai", "x", tm::airy_ai_forward(x)),
    SHIMGEN_UNARY("aten::special_modified_bessel_k0", "self", tm::modified_bessel_k0_forward(x)),
    SHIMGEN_UNARY("aten::special_modified_bessel_k1", "self", tm::modified_bessel_k1_forward(x)),
    SHIMGEN_UNARY("aten::special_scaled_modified_bessel_k0", "x", tm::scaled_modified_bessel_k0_forward(x)),
    SHIMGEN_UNARY("aten::special_scaled_modified_bessel_k1", "x", tm::scaled_modified_bessel_k1_forward(x)),
    SHIMGEN_UNARY("aten::special_spherical_bessel_j0", "x", tm::spherical_bessel_j0_forward(x)),
    SHIMGEN_BINARY("aten::igamma", "self", "other", tm::calc_igamma(x, y)),
    SHIMGEN_BINARY("aten::igammac", "self", "other", tm::calc_igammac(x, y)),
    SHIMGEN_BINARY("aten::special_gammainc", "self", "other", tm::calc_igamma(x, y)),
    SHIMGEN_BINARY("aten::special_gammaincc", "self", "other", tm::calc_igammac(x, y)),
    SHIMGEN_BINARY("aten::special_zeta", "self", "other", (tm::zeta<decltype(x), false>(x, y))),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_t", "x", "n", tm::chebyshev_polynomial_t_forward(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_u", "x", "n", tm::chebyshev_polynomial_u_forward(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_v", "x", "n", tm::chebyshev_polynomial_v_forward(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_w", "x", "n", tm::chebyshev_polynomial_w_forward(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_t", "x", "n",
                   tm::shifted_chebyshev_polynomial_t_forward(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_u", "x", "n",
                   tm::shifted_chebyshev_polynomial_u_forward(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_v", "x", "n",
                   tm::shifted_chebyshev_polynomial_v_forward(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_w", "x", "n",
                   tm::shifted_chebyshev_polynomial_w_forward(x, y)),
    SHIMGEN_BINARY("aten::special_hermite_polynomial_h", "x", "n", tm::hermite_polynomial_h_forward(x, y)),
    SHIMGEN_BINARY("aten::special_hermite_polynomial_he", "x", "n", tm::hermite_polynomial_he_forward(x, y)),
    SHIMGEN_BINARY("aten::special_laguerre_polynomial_l", "x", "n", tm::laguerre_polynomial_l_forward(x, y)),
    SHIMGEN_BINARY("aten::special_legendre_polynomial_p", "x", "n", tm::legendre_polynomial_p_forward(x, y)),
};
#undef SHIMGEN_UNARY
#undef SHIMGEN_BINARY

namespace {

template <class T>
void apply(const SpecialFunction& fn, int64_t n, const Tensor& a, const Tensor* b, const Tensor& out,
           const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> sa = cpu::elementwise::broadcast_strides(a, sizes);
  const std::vector<int64_t> sb = b != nullptr ? cpu::elementwise::broadcast_strides(*b, sizes) : sa;
  const std::vector<int64_t>* strides[3] = {&out.strides, &sa, &sb};
  const T* pa = reinterpret_cast<const T*>(a.data());
  const T* pb = reinterpret_cast<const T*>((b != nullptr ? b : &a)->data());
  T* po = reinterpret_cast<T*>(out.data());
  cpu::elementwise::for_each(sizes, strides, [&](const int64_t* at) {
    if constexpr (std::is_same_v<T, double>) po[at[0]] = fn.f64(n, pa[at[1]], pb[at[2]]);
    else po[at[0]] = T(fn.f32(n, static_cast<float>(pa[at[1]]), static_cast<float>(pb[at[2]])));
  });
}

}  // namespace

const SpecialFunction* find_special(const std::string& target) {
  for (const SpecialFunction& f : kFunctions)
    if (target == f.target) return &f;
  return nullptr;
}

std::vector<std::string> special_targets() {
  std::vector<std::string> out;
  for (const SpecialFunction& f : kFunctions) out.emplace_back(f.target);
  return out;
}

const char* special_argument(const SpecialFunction& fn, int which) { return which == 0 ? fn.a : fn.b; }
bool special_is_binary(const SpecialFunction& fn) { return fn.arity == 2; }

AtenTensorHandle cpu_special(const SpecialFunction& fn, AtenTensorHandle a_h, AtenTensorHandle b_h, int64_t n) {
  const std::string op = fn.target;
  const Tensor& a = cpu::cpu_tensor(a_h, fn.a);
  const Tensor* b = fn.arity == 2 ? &cpu::cpu_tensor(b_h, fn.b) : nullptr;
  cpu::dispatch_floating(a.dtype, fn.target, [](auto) {});
  SHIMGEN_REQUIRE(b == nullptr || b->dtype == a.dtype,
                  op + ": " + fn.a + " and " + fn.b + " must have one dtype (dtype codes " + std::to_string(a.dtype) +
                      " and " + std::to_string(b->dtype) + ")");
  SHIMGEN_REQUIRE(fn.arity != 0 || n >= 0, op + ": n must be non-negative, not " + std::to_string(n));
  const std::vector<int64_t> sizes = b != nullptr ? cpu::elementwise::broadcast_shape(a.sizes, b->sizes) : a.sizes;
  auto out = b != nullptr ? empty_tensor(sizes, cpu::elementwise::output_strides(sizes, {&a, b}), a.dtype, kCPU, -1)
                          : empty_tensor(sizes, cpu::elementwise::output_strides(sizes, {&a}), a.dtype, kCPU, -1);
  cpu::dispatch_floating(a.dtype, fn.target, [&](auto tag) { apply<decltype(tag)>(fn, n, a, b, *out, sizes); });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
