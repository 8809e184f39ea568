// aoti_torch_cuda_repeat_interleave_Tensor: i repeated repeats[i] times (torch.repeat_interleave;
// its size is data-dependent, so the host reads repeats anyway). Computed by the CPU op on host
// copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_repeat_interleave_Tensor(AtenTensorHandle repeats,
                                                                                    int64_t* output_size,
                                                                                    AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(repeats, "repeats");
    s.run("repeat_interleave", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_repeat_interleave_Tensor(s.host(repeats), output_size, &r[0]);
    });
  });
}
