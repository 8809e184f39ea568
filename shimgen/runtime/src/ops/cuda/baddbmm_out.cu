// aoti_torch_cuda_baddbmm_out: out = beta * self + alpha * (batch1 @ batch2). Computed by the CPU
// op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                       AtenTensorHandle batch1, AtenTensorHandle batch2,
                                                                       double beta, double alpha) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(out, "out");
    AtenTensorHandle host_out = s.host(out);
    s.check(aoti_torch_cpu_baddbmm_out(host_out, s.host(self), s.host(batch1), s.host(batch2), beta, alpha), "baddbmm");
    s.copy_back(out, host_out);
  });
}
