// aoti_torch_cpu_index_Tensor: advanced indexing self[indices] (boolean-mask selection x[x > t],
// gathers by index tensors; data-dependent shapes), resolved by AdvancedIndex (advanced_index.h,
// which states the indexing rules). A new contiguous tensor of self's dtype; any dtype (elements are
// copied as bytes).
#include "advanced_index.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_Tensor(AtenTensorHandle self,
                                                                       const AtenTensorHandle** indices,
                                                                       int64_t indices_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const AdvancedIndex plan(in, index_tensors(indices, indices_len_));
    auto out = empty_tensor(plan.sizes(), contiguous_strides_of(plan.sizes()), in.dtype, kCPU, -1);
    const size_t item = in.itemsize();
    char* dst = out->data();
    const char* src = in.data();
    plan.for_each(in.strides, [&](int64_t off) {
      std::memcpy(dst, src + off * static_cast<int64_t>(item), item);
      dst += item;
    });
    *ret0 = wrap(std::move(out));
  });
}
