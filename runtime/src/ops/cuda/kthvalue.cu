// aoti_torch_cuda_kthvalue: k-th smallest value along dim and its index (torch.kthvalue).
// Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim, int32_t keepdim, AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr && ret1 != nullptr, "ret0 or ret1 is null");
    AtenTensorHandle v = nullptr, i = nullptr;
    s.check(aoti_torch_cpu_kthvalue(s.host(self), k, dim, keepdim, &v, &i), "kthvalue");
    AtenTensorHandle dv = s.to_device(v);
    AtenTensorHandle di = nullptr;
    try {
      di = s.to_device(i);
    } catch (...) {
      (void)aoti_torch_delete_tensor_object(dv);
      throw;
    }
    *ret0 = dv;
    *ret1 = di;
  });
}
