// aoti_torch_cuda_kthvalue: k-th smallest value along dim and its index (torch.kthvalue).
// Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim,
                                                                    int32_t keepdim, AtenTensorHandle* ret0,
                                                                    AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("kthvalue", {ret0, ret1},
          [&](AtenTensorHandle* r) { return aoti_torch_cpu_kthvalue(s.host(self), k, dim, keepdim, &r[0], &r[1]); });
  });
}
