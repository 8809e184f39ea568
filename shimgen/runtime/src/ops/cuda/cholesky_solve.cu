// aoti_torch_cuda_cholesky_solve: torch.cholesky_solve on CUDA tensors, by the CPU op's LAPACK on
// host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_linalg_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cholesky_solve(AtenTensorHandle self,
                                                                          AtenTensorHandle input2, int32_t upper,
                                                                          AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    require_cuda(input2, "input2");
    s.run("cholesky_solve", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_cholesky_solve(s.host(self), s.host(input2), upper, &r[0]);
    });
  });
}
