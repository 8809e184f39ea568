// aoti_torch_cpu_median: torch.median(x) of all elements, a 0-d tensor: the lower median ((n-1)/2-th
// smallest), NaN when any element is NaN (torch.median propagates NaN, unlike nanmedian). The
// per-dim form (aten::median.dim) has no C shim: the proxy executor serves it with median_dim below.
#include "../proxy_ops.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_median_dim(AtenTensorHandle self, int64_t dim, bool keepdim, AtenTensorHandle* values,
                    AtenTensorHandle* indices) {
  const Tensor& in = cpu_tensor(self, "self");
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
  const int64_t n = in.sizes.empty() ? 1 : in.sizes[d];
  SHIMGEN_REQUIRE(n > 0, "median() cannot compute the median of an empty dimension");
  select_kth(in, d, (n - 1) / 2, keepdim, "median", /*nan_wins=*/true, values, indices);
}

}  // namespace shimgen::rt::proxy_ops

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_median(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(in.numel() > 0, "median() input tensor cannot be empty");
    // All elements as one contiguous line, then the per-dim selection of its middle.
    const std::vector<int64_t> flat{in.numel()};
    auto line = empty_tensor(flat, {1}, in.dtype, kCPU, -1);
    const size_t item = in.itemsize();
    char* dst = line->data();
    for_each_element(in, [&](int64_t at) {
      std::memcpy(dst, in.data() + at * static_cast<int64_t>(item), item);
      dst += item;
    });
    AtenTensorHandle whole = wrap(std::move(line)), values = nullptr, indices = nullptr;
    struct Free {
      AtenTensorHandle h;
      ~Free() {
        if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
      }
    } own{whole};
    select_kth(*unwrap(whole, "line"), 0, (in.numel() - 1) / 2, false, "median", true, &values, &indices);
    (void)aoti_torch_delete_tensor_object(indices);
    *ret0 = values;
  });
}
