// aoti_torch_cuda_mode: the most frequent value along dim and an index of it (torch.mode; majority
// votes). Computed on a host copy (host_staged.h) by the CPU op's code with torch's CUDA tie rule
// (../mode.h: the run its kernel's reduction tree prefers); the index is the value's last position
// in the line (tests/gpu checks that it points at the value).
#include "../mode.h"
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                                                AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("mode", {ret0, ret1}, [&](AtenTensorHandle* r) {
      return run_guarded(__func__,
                         [&] { mode_on_host(s.host(self), dim, keepdim, ModeTies::kCudaKernel, &r[0], &r[1]); });
    });
  });
}
