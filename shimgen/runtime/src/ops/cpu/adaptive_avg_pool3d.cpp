// aoti_torch_cpu__adaptive_avg_pool3d: F.adaptive_avg_pool3d where inductor's own kernel would need
// windows too large (its fallback); the shared kernel and its rules: adaptive_pool.h.
#include "adaptive_pool.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__adaptive_avg_pool3d(AtenTensorHandle self,
                                                                               const int64_t* output_size,
                                                                               int64_t output_size_len_,
                                                                               AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = adaptive_avg_pool(in, output_size, output_size_len_, 3, "adaptive_avg_pool3d");
  });
}
