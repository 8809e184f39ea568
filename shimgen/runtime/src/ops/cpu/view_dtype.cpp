// aoti_torch_cpu_view_dtype: self.view(dtype), a reinterpretation of self's bytes sharing its storage
// (inductor's fallback for bit casts and for complex <-> real views around complex fallbacks). One
// element size: sizes and strides kept. A smaller element (ratio r): the last dim (stride 1) grows r
// times, the other strides and the storage offset scale by r. A larger one: the last dim must have
// stride 1 and a size divisible by r, the other strides and the offset divisible by r; all divide.
// torch's rules and messages; a 0-d self only to a type of its own size. views::view_dtype serves
// the CUDA shim too.
#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::view_dtype(const Tensor& in, int32_t dtype) {
  const size_t from = in.itemsize(), to = element_size(dtype);
  SHIMGEN_REQUIRE(to > 0, "view(dtype): dtype code " + std::to_string(dtype) + " is not known");
  auto view = views::alias(in);
  view->dtype = dtype;
  if (from != to) {
    SHIMGEN_REQUIRE(!in.sizes.empty(), "self.dim() cannot be 0 to view as a dtype of another element size");
    const size_t last = in.sizes.size() - 1;
    SHIMGEN_REQUIRE(in.strides[last] == 1 || in.sizes[last] == 1,
                    "self.stride(-1) must be 1 to view as a dtype of another element size");
    if (from > to) {
      const int64_t r = static_cast<int64_t>(from / to);
      for (size_t d = 0; d < last; ++d) view->strides[d] = checked_mul(in.strides[d], r, "stride");
      view->strides[last] = 1;
      view->sizes[last] = checked_mul(in.sizes[last], r, "size");
      view->storage_offset = checked_mul(in.storage_offset, r, "storage offset");
    } else {
      const int64_t r = static_cast<int64_t>(to / from);
      SHIMGEN_REQUIRE(in.sizes[last] % r == 0, "self.size(-1) must be divisible by " + std::to_string(r) +
                                                   " to view as a dtype of a larger element size");
      SHIMGEN_REQUIRE(in.storage_offset % r == 0, "self.storage_offset() must be divisible by " + std::to_string(r) +
                                                      " to view as a dtype of a larger element size");
      for (size_t d = 0; d < last; ++d) {
        SHIMGEN_REQUIRE(in.strides[d] % r == 0, "self.stride(" + std::to_string(d) + ") must be divisible by " +
                                                    std::to_string(r) + " to view as a dtype of a larger element size");
        view->strides[d] = in.strides[d] / r;
      }
      view->strides[last] = 1;
      view->sizes[last] = in.sizes[last] / r;
      view->storage_offset = in.storage_offset / r;
    }
  }
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_dtype(AtenTensorHandle self, int32_t dtype,
                                                                     AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::view_dtype(in, dtype));
  });
}
