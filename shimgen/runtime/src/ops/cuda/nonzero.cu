// aoti_torch_cuda_nonzero: coordinates of the non-zero elements, [n, rank] with strides (1, n)
// (torch.nonzero; its size is data-dependent, so the host reads the data anyway). Computed by the
// CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_nonzero(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("nonzero", {ret0}, [&](AtenTensorHandle* r) { return aoti_torch_cpu_nonzero(s.host(self), &r[0]); });
  });
}
