// aoti_torch_cuda_index_reduce: self's slices index[i] along dim reduced with source's
// (Tensor.index_reduce). Computed by the CPU op on host copies (host_staged.h): the same results
// as on the CPU, where tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_index_reduce(AtenTensorHandle self, int64_t dim,
                                                                        AtenTensorHandle index, AtenTensorHandle source,
                                                                        const char* reduce, int32_t include_self,
                                                                        AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("index_reduce", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_index_reduce(s.host(self), dim, s.host(index), s.host(source), reduce, include_self, &r[0]);
    });
  });
}
