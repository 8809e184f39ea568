// aoti_torch_cuda__cdist_forward: p-norm distances between rows (torch.cdist). Computed by the
// CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__cdist_forward(AtenTensorHandle x1, AtenTensorHandle x2,
                                                                          double p, int64_t* compute_mode,
                                                                          AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(x1, "x1");
    s.run("cdist", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu__cdist_forward(s.host(x1), s.host(x2), p, compute_mode, &r[0]);
    });
  });
}
