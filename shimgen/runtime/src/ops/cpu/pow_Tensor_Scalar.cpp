// aoti_torch_cpu_pow_Tensor_Scalar: self ** exponent for a complex self (inductor generates real powers
// itself): std::pow on complex<double>, rounded once to self's dtype; exponent 2 is z * z (exact
// where torch's squaring is). New tensor of self's dtype, torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Tensor_Scalar(AtenTensorHandle self, double exponent,
                                                                            AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    if (!elementwise::is_complex(a.dtype))
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "pow: dtype code " + std::to_string(a.dtype) +
                                                  " is not served (complex64/128; inductor generates real powers)");
    auto out = empty_tensor(a.sizes, elementwise::output_strides(a.sizes, {&a}), a.dtype, kCPU, -1);
    const std::vector<int64_t>* strides[2] = {&out->strides, &a.strides};
    elementwise::for_each(a.sizes, strides, [&](const int64_t* at) {
      const std::complex<double> z = elementwise::read_complex(a, at[1]);
      elementwise::write_complex(*out, at[0],
                                 exponent == 2.0 ? z * z : std::pow(z, std::complex<double>(exponent, 0.0)));
    });
    *ret0 = wrap(std::move(out));
  });
}
