// aoti_torch_cuda_addbmm: beta * self + alpha * sum_b batch1[b] @ batch2[b]. Computed by the CPU op
// on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_addbmm(AtenTensorHandle self, AtenTensorHandle batch1,
                                                                  AtenTensorHandle batch2, double beta, double alpha,
                                                                  AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(batch1, "batch1");
    s.run("addbmm", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_addbmm(s.host(self), s.host(batch1), s.host(batch2), beta, alpha, &r[0]);
    });
  });
}
