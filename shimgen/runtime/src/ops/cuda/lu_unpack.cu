// aoti_torch_cuda_lu_unpack: torch.lu_unpack on CUDA tensors, by the CPU op on host copies
// (host_staged.h); compared with torch on the CPU in tests/integration/test_cpu_linalg_ops.py.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_lu_unpack(AtenTensorHandle LU_data,
                                                                     AtenTensorHandle LU_pivots, int32_t unpack_data,
                                                                     int32_t unpack_pivots, AtenTensorHandle* ret0,
                                                                     AtenTensorHandle* ret1, AtenTensorHandle* ret2) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(LU_data, "LU_data");
    s.run("lu_unpack", {ret0, ret1, ret2}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_lu_unpack(s.host(LU_data), s.host(LU_pivots), unpack_data, unpack_pivots, &r[0], &r[1],
                                      &r[2]);
    });
  });
}
