// aoti_torch_cpu_polar: abs * (cos(angle) + i sin(angle)), broadcast (rotary embeddings in complex
// form: torch.polar(ones, freqs)). float32 operands give complex64, float64 complex128. New tensor,
// torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                                                AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& r = cpu_tensor(abs, "abs");
    const Tensor& t = cpu_tensor(angle, "angle");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(r.dtype == t.dtype, "polar: expected abs and angle to have the same dtype");
    if (r.dtype != kFloat32 && r.dtype != kFloat64)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "polar: dtype code " + std::to_string(r.dtype) + " is not float32/64");
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(r.sizes, t.sizes);
    const std::vector<int64_t> sr = elementwise::broadcast_strides(r, sizes), st = elementwise::broadcast_strides(t, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&r, &t}),
                            r.dtype == kFloat64 ? kComplex128 : kComplex64, kCPU, -1);
    const std::vector<int64_t>* strides[3] = {&out->strides, &sr, &st};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      const double m = elementwise::read_complex(r, at[1]).real(), a = elementwise::read_complex(t, at[2]).real();
      elementwise::write_complex(*out, at[0], {m * std::cos(a), m * std::sin(a)});
    });
    *ret0 = wrap(std::move(out));
  });
}
