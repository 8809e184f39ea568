// aoti_torch_cpu_adaptive_max_pool2d: F.adaptive_max_pool2d(self, output_size, return_indices=True)
// over [N, C, H, W] or [C, H, W] (channels-last outputs for a channels-last self); the shared kernel
// and its rules: adaptive_pool.h.
#include "adaptive_pool.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_adaptive_max_pool2d(AtenTensorHandle self,
                                                                              const int64_t* output_size,
                                                                              int64_t output_size_len_,
                                                                              AtenTensorHandle* ret0,
                                                                              AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    adaptive_max_pool(in, output_size, output_size_len_, 2, "adaptive_max_pool2d", ret0, ret1);
  });
}
