// aoti_torch_cuda_triangular_solve: torch.triangular_solve on CUDA tensors, by the CPU op's BLAS trsm
// on host copies (host_staged.h); compared with torch on the CPU in tests/integration/test_cpu_linalg_ops.py.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_triangular_solve(AtenTensorHandle self, AtenTensorHandle A,
                                                                            int32_t upper, int32_t transpose,
                                                                            int32_t unitriangular,
                                                                            AtenTensorHandle* ret0,
                                                                            AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    require_cuda(A, "A");
    s.run("triangular_solve", {ret0, ret1}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_triangular_solve(s.host(self), s.host(A), upper, transpose, unitriangular, &r[0], &r[1]);
    });
  });
}
