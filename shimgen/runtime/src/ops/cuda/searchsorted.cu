// aoti_torch_cuda_searchsorted_{Tensor,Scalar}: torch.searchsorted. Computed by the CPU op on host
// copies (host_staged.h): the same results as on the CPU, where tests/integration/test_cpu_ring_ops.py
// compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_searchsorted_Tensor(AtenTensorHandle sorted_sequence,
                                                                    AtenTensorHandle self, int32_t out_int32,
                                                                    int32_t right, const char** side,
                                                                    AtenTensorHandle* sorter, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("searchsorted", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_searchsorted_Tensor(s.host(sorted_sequence), s.host(self), out_int32, right, side,
                                                s.host(sorter), &r[0]);
    });
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_searchsorted_Scalar(AtenTensorHandle sorted_sequence, double self,
                                                                    int32_t out_int32, int32_t right, const char** side,
                                                                    AtenTensorHandle* sorter, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(sorted_sequence, "sorted_sequence");
    s.run("searchsorted", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_searchsorted_Scalar(s.host(sorted_sequence), self, out_int32, right, side, s.host(sorter),
                                                &r[0]);
    });
  });
}

}  // extern "C"
