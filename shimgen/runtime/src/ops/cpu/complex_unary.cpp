// aten::exp and aten::_conj_physical of a complex tensor (no C shim on CPU: served by the proxy
// executor; inductor generates the real exp itself): exp in complex<double>, rounded once; the
// conjugate negates the imaginary part. A new tensor of self's dtype in self's layout made dense.
#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_complex_unary(AtenTensorHandle self, char op) {
  const Tensor& a = cpu_tensor(self, "self");
  const char* name = op == 'e' ? "exp" : "_conj_physical";
  SHIMGEN_REQUIRE(op == 'e' || op == 'c', "complex unary op: unknown operator");
  if (!elementwise::is_complex(a.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(name) + ": dtype code " + std::to_string(a.dtype) +
                                                " is not served (complex64/128; inductor generates the real op)");
  auto out = empty_tensor(a.sizes, elementwise::output_strides(a.sizes, {&a}), a.dtype, kCPU, -1);
  const std::vector<int64_t>* strides[2] = {&out->strides, &a.strides};
  elementwise::for_each(a.sizes, strides, [&](const int64_t* at) {
    const std::complex<double> z = elementwise::read_complex(a, at[1]);
    elementwise::write_complex(*out, at[0], op == 'e' ? std::exp(z) : std::conj(z));
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
