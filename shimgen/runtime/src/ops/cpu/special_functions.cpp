// The elementwise special functions the proxy executor serves (proxy_ops.h): the ops of torch's
// pointwise_overrides_data with no Triton implementation (torch/_inductor/codegen/common.py), which
// AOTInductor leaves to aten on CUDA and reaches through the proxy executor (digamma, polygamma,
// special_ndtri, ...). One table (kFunctions: target, arity, the scalar function) and one strided,
// broadcasting host walk. The scalar functions are ours (special_math.h), computed in double: float64
// as is, float32 rounded from the double result, bfloat16/float16 through float. Output: torch's
// elementwise layout, the operands' dtype.
#include <cmath>
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"
#include "special_math.h"

namespace shimgen::rt::proxy_ops {

namespace sm = special_math;

// One function at float and double. Unary ones ignore b; polygamma takes its order as n.
struct SpecialFunction {
  const char* target;
  int arity;  // 1: (self), 2: (self, other) or (x, n), 0: polygamma (n, self)
  const char* a;
  const char* b;
  float (*f32)(int64_t, float, float);
  double (*f64)(int64_t, double, double);
};

// An entry whose float and double functions are one double expression of x (and y): float operands
// are widened, the result rounded once.
#define SHIMGEN_UNARY(target, arg, expr)                         \
  SpecialFunction {                                              \
    target, 1, arg, nullptr,                                     \
        [](int64_t, float xf, float) -> float {                  \
          const double x = xf;                                   \
          return static_cast<float>(expr);                       \
        },                                                       \
        [](int64_t, double x, double) -> double { return expr; } \
  }
#define SHIMGEN_BINARY(target, arg_a, arg_b, expr)                 \
  SpecialFunction {                                                \
    target, 2, arg_a, arg_b,                                       \
        [](int64_t, float xf, float yf) -> float {                 \
          const double x = xf, y = yf;                             \
          return static_cast<float>(expr);                         \
        },                                                         \
        [](int64_t, double x, double y) -> double { return expr; } \
  }

// Policy as data: what is served, with which arguments, computed by which function of special_math.h.
const SpecialFunction kFunctions[] = {
    SHIMGEN_UNARY("aten::digamma", "self", sm::digamma(x)),
    SpecialFunction{"aten::polygamma", 0, "self", nullptr,
                    [](int64_t n, float x, float) { return static_cast<float>(sm::polygamma(n, x, true)); },
                    [](int64_t n, double x, double) { return sm::polygamma(n, x); }},
    SHIMGEN_UNARY("aten::special_ndtri", "self", sm::ndtri(x)),
    SHIMGEN_UNARY("aten::special_ndtr", "self", sm::ndtr(x)),
    SHIMGEN_UNARY("aten::special_log_ndtr", "self", sm::log_ndtr(x)),
    SHIMGEN_UNARY("aten::special_i0e", "self", sm::i0e(x)),
    SHIMGEN_UNARY("aten::special_i1e", "self", sm::i1e(x)),
    SHIMGEN_UNARY("aten::special_airy_ai", "x", sm::airy_ai(x)),
    SHIMGEN_UNARY("aten::special_modified_bessel_k0", "self", sm::bessel_k(0.0, x)),
    SHIMGEN_UNARY("aten::special_modified_bessel_k1", "self", sm::bessel_k(1.0, x)),
    SHIMGEN_UNARY("aten::special_scaled_modified_bessel_k0", "x", sm::scaled_bessel_k(0.0, x)),
    SHIMGEN_UNARY("aten::special_scaled_modified_bessel_k1", "x", sm::scaled_bessel_k(1.0, x)),
    SHIMGEN_UNARY("aten::special_spherical_bessel_j0", "x", sm::spherical_bessel_j0(x)),
    SHIMGEN_BINARY("aten::igamma", "self", "other", sm::igamma(x, y)),
    SHIMGEN_BINARY("aten::igammac", "self", "other", sm::igammac(x, y)),
    SHIMGEN_BINARY("aten::special_gammainc", "self", "other", sm::igamma(x, y)),
    SHIMGEN_BINARY("aten::special_gammaincc", "self", "other", sm::igammac(x, y)),
    SHIMGEN_BINARY("aten::special_zeta", "self", "other", sm::zeta(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_t", "x", "n", sm::chebyshev_t(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_u", "x", "n", sm::chebyshev_u(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_v", "x", "n", sm::chebyshev_v(x, y)),
    SHIMGEN_BINARY("aten::special_chebyshev_polynomial_w", "x", "n", sm::chebyshev_w(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_t", "x", "n", sm::shifted_chebyshev_t(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_u", "x", "n", sm::shifted_chebyshev_u(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_v", "x", "n", sm::shifted_chebyshev_v(x, y)),
    SHIMGEN_BINARY("aten::special_shifted_chebyshev_polynomial_w", "x", "n", sm::shifted_chebyshev_w(x, y)),
    SHIMGEN_BINARY("aten::special_hermite_polynomial_h", "x", "n", sm::hermite_h(x, y)),
    SHIMGEN_BINARY("aten::special_hermite_polynomial_he", "x", "n", sm::hermite_he(x, y)),
    SHIMGEN_BINARY("aten::special_laguerre_polynomial_l", "x", "n", sm::laguerre_l(x, y)),
    SHIMGEN_BINARY("aten::special_legendre_polynomial_p", "x", "n", sm::legendre_p(x, y)),
};
#undef SHIMGEN_UNARY
#undef SHIMGEN_BINARY

namespace {

template <class T> void apply(const SpecialFunction& fn, int64_t n, const Tensor& a, const Tensor* b, const Tensor& out,
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
