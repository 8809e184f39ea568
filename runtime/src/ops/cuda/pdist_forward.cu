// aoti_torch_cuda__pdist_forward: p-norm distances between the rows i < j (torch.pdist). Computed
// by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__pdist_forward(AtenTensorHandle self, double p, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    AtenTensorHandle r = nullptr;
    s.check(aoti_torch_cpu__pdist_forward(s.host(self), p, &r), "pdist");
    *ret0 = s.to_device(r);
  });
}
