// aoti_torch_cuda_cholesky_inverse: torch.cholesky_inverse on CUDA tensors, by the CPU op's LAPACK on
// host copies (host_staged.h); compared with torch on the CPU in tests/integration/test_cpu_linalg_ops.py.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cholesky_inverse(AtenTensorHandle self, int32_t upper,
                                                                            AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("cholesky_inverse", {ret0},
          [&](AtenTensorHandle* r) { return aoti_torch_cpu_cholesky_inverse(s.host(self), upper, &r[0]); });
  });
}
