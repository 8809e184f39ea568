// aoti_torch_cpu_mul_Tensor: self * other, broadcast. Inductor generates real products itself and
// falls back for complex ones (spectral filters, rotary embeddings in complex form): complex64/128
// with complex or real float operands; the result is complex128 when an operand that sets the
// width (torch's promotion: dimensioned ones before 0-d ones) is 64-bit, else complex64. New
// tensor, torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mul_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                                                     AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(other, "other");
    require_out(ret0, "ret0");
    const int32_t type = rules::mul_dtype(a, b);
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
    const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes),
                               sb = elementwise::broadcast_strides(b, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), type, kCPU, -1);
    const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      elementwise::write_complex(*out, at[0],
                                 elementwise::read_complex(a, at[1]) * elementwise::read_complex(b, at[2]));
    });
    *ret0 = wrap(std::move(out));
  });
}
