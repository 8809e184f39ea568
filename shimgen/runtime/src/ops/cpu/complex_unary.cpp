// aten::exp, aten::_conj_physical and the other unary math of a complex tensor (log, sqrt, sin, cos,
// tanh, sigmoid, reciprocal, rsqrt, neg, expm1, log1p; no C shim on CPU: served by the proxy executor;
// inductor generates the real ops itself): computed in complex<double> (principal branches, as torch's
// std::complex / thrust forms), rounded once; the conjugate negates the imaginary part. A new tensor of self's dtype in
// self's layout made dense.
#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

namespace {

std::complex<double> apply(char op, std::complex<double> z) {
  const std::complex<double> one(1.0, 0.0);
  switch (op) {
    case 'e': return std::exp(z);
    case 'c': return std::conj(z);
    case 'l': return std::log(z);
    case 's': return std::sqrt(z);
    case 'S': return std::sin(z);
    case 'C': return std::cos(z);
    case 't': return std::tanh(z);
    case 'g': return one / (one + std::exp(-z));
    case 'r': return one / z;
    case 'R': return one / std::sqrt(z);
    case 'n': return -z;
    case 'm': {  // exp(z) - 1 without cancellation: (expm1(x) cos y - 2 sin^2(y / 2), e^x sin y)
      const double s = std::sin(z.imag() / 2.0);
      return {std::expm1(z.real()) * std::cos(z.imag()) - 2.0 * s * s, std::exp(z.real()) * std::sin(z.imag())};
    }
    default: {  // log1p: log|1 + z| = log1p(x) + log1p((y / (1 + x))^2) / 2 near 0, arg(1 + z)
      const double x = z.real(), y = z.imag();
      const double re = std::abs(x) < 0.5 && std::abs(y) < 0.5 ? 0.5 * std::log1p(2.0 * x + x * x + y * y)
                                                               : std::log(std::abs(one + z));
      return {re, std::atan2(y, 1.0 + x)};
    }
  }
}

}  // namespace

AtenTensorHandle cpu_complex_unary(AtenTensorHandle self, char op) {
  const Tensor& a = cpu_tensor(self, "self");
  const char* name = nullptr;
  switch (op) {
    case 'e': name = "exp"; break;
    case 'c': name = "_conj_physical"; break;
    case 'l': name = "log"; break;
    case 's': name = "sqrt"; break;
    case 'S': name = "sin"; break;
    case 'C': name = "cos"; break;
    case 't': name = "tanh"; break;
    case 'g': name = "sigmoid"; break;
    case 'r': name = "reciprocal"; break;
    case 'R': name = "rsqrt"; break;
    case 'n': name = "neg"; break;
    case 'm': name = "expm1"; break;
    case 'p': name = "log1p"; break;
    default: break;
  }
  SHIMGEN_REQUIRE(name != nullptr, "complex unary op: unknown operator");
  if (!elementwise::is_complex(a.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(name) + ": dtype code " + std::to_string(a.dtype) +
                                                " is not served (complex64/128; inductor generates the real op)");
  auto out = empty_tensor(a.sizes, elementwise::output_strides(a.sizes, {&a}), a.dtype, kCPU, -1);
  const std::vector<int64_t>* strides[2] = {&out->strides, &a.strides};
  elementwise::for_each(a.sizes, strides, [&](const int64_t* at) {
    const std::complex<double> z = elementwise::read_complex(a, at[1]);
    elementwise::write_complex(*out, at[0], apply(op, z));
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
