// aoti_torch_cpu_avg_pool3d: F.avg_pool3d where the window holds more than 25 elements and differs
// from the stride (inductor's fallback); the shared kernel and torch's rules it follows: avg_pool.h.
#include "avg_pool.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_avg_pool3d(
    AtenTensorHandle self, const int64_t* kernel_size, int64_t kernel_size_len_, const int64_t* stride,
    int64_t stride_len_, const int64_t* padding, int64_t padding_len_, int32_t ceil_mode, int32_t count_include_pad,
    int64_t* divisor_override, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = avg_pool(in, kernel_size, kernel_size_len_, stride, stride_len_, padding, padding_len_, ceil_mode != 0,
                     count_include_pad != 0, divisor_override, 3);
  });
}
