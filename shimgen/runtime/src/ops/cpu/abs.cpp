// aoti_torch_cpu_abs: |self|. Inductor generates abs itself for real dtypes and falls back for
// complex ones (spectrum magnitudes after an FFT): a complex64/128 self gives float32/64 magnitudes
// (hypot, as torch), a float32/64 self its absolute values. New tensor, torch's elementwise layout.
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_abs(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int32_t type = rules::abs_dtype(in.dtype);
    auto out = empty_tensor(in.sizes, elementwise::output_strides(in.sizes, {&in}), type, kCPU, -1);
    const std::vector<int64_t>* strides[2] = {&out->strides, &in.strides};
    elementwise::for_each(in.sizes, strides, [&](const int64_t* at) {
      const double v = std::abs(elementwise::read_complex(in, at[1]));
      if (type == kFloat32) reinterpret_cast<float*>(out->data())[at[0]] = static_cast<float>(v);
      else reinterpret_cast<double*>(out->data())[at[0]] = v;
    });
    *ret0 = wrap(std::move(out));
  });
}
