// aoti_torch_cuda_geqrf: torch.geqrf on CUDA tensors, by the CPU op's LAPACK on host copies
// (host_staged.h); compared with torch on the CPU in tests/integration/test_cpu_linalg_ops.py.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_geqrf(AtenTensorHandle self, AtenTensorHandle* ret0,
                                                                 AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("geqrf", {ret0, ret1}, [&](AtenTensorHandle* r) { return aoti_torch_cpu_geqrf(s.host(self), &r[0], &r[1]); });
  });
}
