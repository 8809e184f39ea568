// aoti_torch_cpu_squeeze_dim: a view of self without dim when its size is 1 (else self's shape),
// sharing self's storage, as torch.squeeze(self, dim). Inductor falls back for complex tensors.
// views::squeeze_dim serves the CUDA shim too.
#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::squeeze_dim(const Tensor& in, int64_t dim) {
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
  auto view = alias(in);
  if (!in.sizes.empty() && in.sizes[static_cast<size_t>(d)] == 1) {
    view->sizes.erase(view->sizes.begin() + d);
    view->strides.erase(view->strides.begin() + d);
  }
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_squeeze_dim(AtenTensorHandle self, int64_t dim,
                                                                      AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::squeeze_dim(in, dim));
  });
}
