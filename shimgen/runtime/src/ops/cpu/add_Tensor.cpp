// aoti_torch_cpu_add_Tensor: self + alpha * other, broadcast. Inductor generates real sums itself and
// falls back for complex ones (complex-valued layers, spectral filters; a complex plus a Python
// number arrives as a 0-d scalar_to_tensor operand): complex64/128 with complex or real float
// operands, the result dtype by mul_Tensor's rule (elementwise.h). New tensor, torch's elementwise
// layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_add_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                                                     double alpha, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(other, "other");
    require_out(ret0, "ret0");
    const int32_t type = elementwise::complex_binary_dtype(a, b, "add");
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
    const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes),
                               sb = elementwise::broadcast_strides(b, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), type, kCPU, -1);
    const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      const std::complex<double> y = elementwise::read_complex(b, at[2]);
      elementwise::write_complex(*out, at[0], elementwise::read_complex(a, at[1]) + (alpha == 1.0 ? y : alpha * y));
    });
    *ret0 = wrap(std::move(out));
  });
}
