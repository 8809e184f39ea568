// aoti_torch_cuda_mode: the most frequent value along dim and an index of it (torch.mode; majority
// votes). Computed by the CPU op on a host copy (host_staged.h): ties between values go to the
// smallest, the index is the value's last position in the line (torch's CUDA kernel documents no
// tie order; tests/gpu checks that the index points at the value).
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                                                AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("mode", {ret0, ret1},
          [&](AtenTensorHandle* r) { return aoti_torch_cpu_mode(s.host(self), dim, keepdim, &r[0], &r[1]); });
  });
}
