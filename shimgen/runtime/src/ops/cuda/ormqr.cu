// aoti_torch_cuda_ormqr: torch.ormqr on CUDA tensors, by the CPU op's LAPACK on host copies
// (host_staged.h); compared with torch on the CPU in tests/integration/test_cpu_linalg_ops.py.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_ormqr(AtenTensorHandle self, AtenTensorHandle input2,
                                                                 AtenTensorHandle input3, int32_t left,
                                                                 int32_t transpose, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    require_cuda(input3, "input3");
    s.run("ormqr", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_ormqr(s.host(self), s.host(input2), s.host(input3), left, transpose, &r[0]);
    });
  });
}
