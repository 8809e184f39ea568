// aoti_torch_cpu_squeeze_dim: a view of self without dim when its size is 1 (else self's shape),
// sharing self's storage, as torch.squeeze(self, dim). Inductor falls back for complex tensors.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_squeeze_dim(AtenTensorHandle self, int64_t dim,
                                                                      AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    auto view = new_tensor();
    view->storage = in.storage;
    view->dtype = in.dtype;
    view->storage_offset = in.storage_offset;
    view->sizes = in.sizes;
    view->strides = in.strides;
    if (!in.sizes.empty() && in.sizes[static_cast<size_t>(d)] == 1) {
      view->sizes.erase(view->sizes.begin() + d);
      view->strides.erase(view->strides.begin() + d);
    }
    *ret0 = wrap(std::move(view));
  });
}
