// aoti_torch_cuda_bucketize_Tensor: bucket of each value in 1-d boundaries (torch.bucketize).
// Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bucketize_Tensor(AtenTensorHandle self,
                                                                            AtenTensorHandle boundaries,
                                                                            int32_t out_int32, int32_t right,
                                                                            AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("bucketize", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_bucketize_Tensor(s.host(self), s.host(boundaries), out_int32, right, &r[0]);
    });
  });
}
