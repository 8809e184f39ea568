// aoti_torch_cuda_masked_select: x[mask] (a data-dependent size: the host reads the mask anyway).
// Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_masked_select(AtenTensorHandle self, AtenTensorHandle mask,
                                                                         AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("masked_select", {ret0},
          [&](AtenTensorHandle* r) { return aoti_torch_cpu_masked_select(s.host(self), s.host(mask), &r[0]); });
  });
}
