// aoti_torch_cuda_index_Tensor: advanced indexing self[indices] (boolean-mask selection x[x > t],
// gathers by index tensors; data-dependent shapes, so the host reads the indices anyway). Computed
// by the CPU op on host copies of self and the index tensors (host_staged.h; index tensors may also
// be CPU tensors, as torch allows): a new contiguous tensor on self's device.
#include <vector>

#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_index_Tensor(AtenTensorHandle self,
                                                                        const AtenTensorHandle** indices,
                                                                        int64_t indices_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    SHIMGEN_REQUIRE(indices_len_ >= 0 && (indices != nullptr || indices_len_ == 0), "indices is null");
    AtenTensorHandle host_self = s.host(self);  // first: results go to self's device
    std::vector<AtenTensorHandle> host(static_cast<size_t>(indices_len_), nullptr);
    std::vector<const AtenTensorHandle*> slots(static_cast<size_t>(indices_len_), nullptr);
    for (size_t i = 0; i < host.size(); ++i) {
      if (indices[i] == nullptr || *indices[i] == nullptr) continue;  // None: the dim is kept
      host[i] = s.host(*indices[i]);
      slots[i] = &host[i];
    }
    s.run("index", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_index_Tensor(host_self, slots.data(), indices_len_, &r[0]);
    });
  });
}
