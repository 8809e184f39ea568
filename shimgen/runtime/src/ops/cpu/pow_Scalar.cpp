// aoti_torch_cpu_pow_Scalar: self ** exponent for a real scalar base and a complex exponent tensor
// (2.0 ** z, 10 ** (i * phase); inductor generates the real powers itself): std::pow on
// complex<double>, rounded once to the exponent's dtype; base 1 gives ones, as torch's pow(Scalar,
// Tensor) does. A new contiguous tensor of the exponent's dtype, whatever the exponent's layout: torch's
// pow(Scalar, Tensor) writes into an empty out tensor it resizes (measured: channels-last and transposed
// exponents give contiguous results).
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Scalar(double self, AtenTensorHandle exponent,
                                                                     AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& e = cpu_tensor(exponent, "exponent");
    require_out(ret0, "ret0");
    if (!elementwise::is_complex(e.dtype))
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "pow: exponent dtype code " + std::to_string(e.dtype) +
                                                  " is not served (complex64/128; inductor generates real powers)");
    auto out = empty_tensor(e.sizes, contiguous_strides_of(e.sizes), e.dtype, kCPU, -1);
    const std::vector<int64_t>* strides[2] = {&out->strides, &e.strides};
    const std::complex<double> base(self, 0.0);
    elementwise::for_each(e.sizes, strides, [&](const int64_t* at) {
      const std::complex<double> z = elementwise::read_complex(e, at[1]);
      elementwise::write_complex(*out, at[0], self == 1.0 ? std::complex<double>(1.0, 0.0) : std::pow(base, z));
    });
    *ret0 = wrap(std::move(out));
  });
}
