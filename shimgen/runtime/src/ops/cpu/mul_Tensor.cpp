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
    for (const Tensor* t : {&a, &b})
      if (!elementwise::is_complex(t->dtype) && t->dtype != kFloat32 && t->dtype != kFloat64)
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "mul: dtype code " + std::to_string(t->dtype) +
                                                    " is not served (complex64/128, float32/64)");
    if (!elementwise::is_complex(a.dtype) && !elementwise::is_complex(b.dtype))
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "mul: only products with a complex operand are served");
    // torch's type promotion: 0-d operands (scalar_to_tensor's) count only when they raise the
    // category (real -> complex), never the width; among operands of one priority, 64-bit wins.
    std::vector<const Tensor*> leading;
    for (const Tensor* t : {&a, &b})
      if (!t->sizes.empty()) leading.push_back(t);
    if (leading.empty()) leading = {&a, &b};
    bool wide = false;
    for (const Tensor* t : leading) {
      wide |= t->dtype == kComplex128 || t->dtype == kFloat64;
    }
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
    const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes), sb = elementwise::broadcast_strides(b, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), wide ? kComplex128 : kComplex64, kCPU, -1);
    const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      elementwise::write_complex(*out, at[0], elementwise::read_complex(a, at[1]) * elementwise::read_complex(b, at[2]));
    });
    *ret0 = wrap(std::move(out));
  });
}
