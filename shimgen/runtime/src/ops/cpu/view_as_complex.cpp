// aoti_torch_cpu_view_as_complex: a float32/64 tensor whose last dim is 2 (real, imaginary) with
// stride 1 seen as complex64/128 without it: a view sharing self's storage (strides and offset
// halved; each must be even), as torch.view_as_complex. Rotary embeddings in complex form
// (DeepSeek-V2, Llama's reference code). views::view_as_complex serves the CUDA shim too.
#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::view_as_complex(const Tensor& in) {
  if (in.dtype != kFloat32 && in.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         "view_as_complex: dtype code " + std::to_string(in.dtype) + " is not float32/64");
  SHIMGEN_REQUIRE(!in.sizes.empty() && in.sizes.back() == 2, "Tensor must have a last dimension of size 2");
  SHIMGEN_REQUIRE(in.strides.back() == 1, "Tensor must have a last dimension with stride 1");
  for (size_t d = 0; d + 1 < in.strides.size(); ++d)
    SHIMGEN_REQUIRE(in.strides[d] % 2 == 0 || in.sizes[d] <= 1,
                    "Tensor must have a stride divisible by 2 for all but last dimension");
  SHIMGEN_REQUIRE(in.storage_offset % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  auto view = alias(in);
  view->dtype = in.dtype == kFloat32 ? kComplex64 : kComplex128;
  view->sizes.pop_back();
  view->strides.pop_back();
  for (int64_t& s : view->strides) s /= 2;
  view->storage_offset = in.storage_offset / 2;
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_as_complex(AtenTensorHandle self,
                                                                          AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::view_as_complex(in));
  });
}
