// aoti_torch_cuda_logcumsumexp: log(cumsum(exp(self))) along dim. Computed by the CPU op on host
// copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_logcumsumexp(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    AtenTensorHandle r = nullptr;
    s.check(aoti_torch_cpu_logcumsumexp(s.host(self), dim, &r), "logcumsumexp");
    *ret0 = s.to_device(r);
  });
}
