// aten::sub.Tensor and aten::div.Tensor with a complex operand (no C shim on CPU: served by the proxy
// executor; inductor generates the real ones itself): self - alpha * other and self / other,
// broadcast, in complex<double> and rounded once; the result dtype by mul_Tensor's rule (a complex
// operand, complex128 when an operand that sets the width is 64-bit). New tensor, torch's
// elementwise layout.
#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_complex_binary(AtenTensorHandle self, AtenTensorHandle other, char op, double alpha) {
  const Tensor& a = cpu_tensor(self, "self");
  const Tensor& b = cpu_tensor(other, "other");
  SHIMGEN_REQUIRE(op == '-' || op == '/', "complex binary op: unknown operator");
  const int32_t type = elementwise::complex_binary_dtype(a, b, op == '-' ? "sub" : "div");
  const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
  const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes),
                             sb = elementwise::broadcast_strides(b, sizes);
  auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), type, kCPU, -1);
  const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
  elementwise::for_each(sizes, strides, [&](const int64_t* at) {
    const std::complex<double> x = elementwise::read_complex(a, at[1]), y = elementwise::read_complex(b, at[2]);
    elementwise::write_complex(*out, at[0], op == '-' ? x - (alpha == 1.0 ? y : alpha * y) : x / y);
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
