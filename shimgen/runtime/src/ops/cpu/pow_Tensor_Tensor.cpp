// aoti_torch_cpu_pow_Tensor_Tensor: self ** exponent, broadcast, with a complex operand (inductor
// generates real powers itself): std::pow on complex<double>, rounded once; the result dtype by
// mul_Tensor's rule (elementwise.h). New tensor, torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Tensor_Tensor(AtenTensorHandle self,
                                                                            AtenTensorHandle exponent,
                                                                            AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(exponent, "exponent");
    require_out(ret0, "ret0");
    const int32_t type = elementwise::complex_binary_dtype(a, b, "pow");
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
    const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes),
                               sb = elementwise::broadcast_strides(b, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), type, kCPU, -1);
    const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      elementwise::write_complex(*out, at[0],
                                 std::pow(elementwise::read_complex(a, at[1]), elementwise::read_complex(b, at[2])));
    });
    *ret0 = wrap(std::move(out));
  });
}
