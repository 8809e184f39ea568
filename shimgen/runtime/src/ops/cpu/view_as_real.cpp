// aoti_torch_cpu_view_as_real: a complex64/128 tensor seen as float32/64 with a trailing dim of 2
// (real, imaginary): a view sharing self's storage (sizes + [2], strides * 2 + [1], offset * 2), as
// torch.view_as_real. FNet and any model that returns or post-processes FFT results.
// views::view_as_real serves the CUDA shim too.
#include "../views.h"
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::view_as_real(const Tensor& in) {
  SHIMGEN_REQUIRE(elementwise::is_complex(in.dtype),
                  "view_as_real is only supported for complex tensors (dtype code " + std::to_string(in.dtype) + ")");
  auto view = alias(in);
  view->dtype = in.dtype == kComplex64 ? kFloat32 : kFloat64;
  view->sizes.push_back(2);
  for (int64_t& s : view->strides) s = checked_mul(s, 2, "stride");
  view->strides.push_back(1);
  view->storage_offset = checked_mul(in.storage_offset, 2, "storage offset");
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_as_real(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::view_as_real(in));
  });
}
