// aten::complex (no C shim: served by the proxy executor): torch.complex(real, imag), broadcast;
// float32 operands give complex64, float64 complex128. A new tensor, torch's elementwise layout.
#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_complex(AtenTensorHandle real, AtenTensorHandle imag) {
  const Tensor& re = cpu_tensor(real, "real");
  const Tensor& im = cpu_tensor(imag, "imag");
  SHIMGEN_REQUIRE(re.dtype == im.dtype, "complex: expected real and imag to have the same dtype");
  if (re.dtype != kFloat32 && re.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "complex: dtype code " + std::to_string(re.dtype) + " is not float32/64");
  const std::vector<int64_t> sizes = elementwise::broadcast_shape(re.sizes, im.sizes);
  const std::vector<int64_t> sr = elementwise::broadcast_strides(re, sizes), si = elementwise::broadcast_strides(im, sizes);
  auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&re, &im}),
                          re.dtype == kFloat64 ? kComplex128 : kComplex64, kCPU, -1);
  const std::vector<int64_t>* strides[3] = {&out->strides, &sr, &si};
  elementwise::for_each(sizes, strides, [&](const int64_t* at) {
    elementwise::write_complex(*out, at[0], {elementwise::read_complex(re, at[1]).real(),
                                             elementwise::read_complex(im, at[2]).real()});
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
