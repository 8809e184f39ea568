// aoti_torch_cpu_nanmedian: torch.nanmedian(x) of all elements, a 0-d tensor: the lower median of
// the non-NaN elements, NaN when every element is NaN (robust statistics over masked-out values).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nanmedian(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(in.numel() > 0, "nanmedian() input tensor cannot be empty");
    // The non-NaN elements as one contiguous line (NaN counts as largest: they sort last), then the
    // per-dim selection of the middle of the numbers.
    auto line = empty_tensor({in.numel()}, {1}, in.dtype, kCPU, -1);
    int64_t numbers = 0;
    dispatch_real(in.dtype, "nanmedian", [&](auto t) {
      using T = decltype(t);
      const auto* src = reinterpret_cast<const T*>(in.data());
      auto* dst = reinterpret_cast<T*>(line->data());
      int64_t nans = in.numel();
      for_each_element(in, [&](int64_t at) {
        const auto v = value_of(src[at]);
        if (v == v) dst[numbers++] = src[at];
        else dst[--nans] = src[at];
      });
    });
    AtenTensorHandle whole = wrap(std::move(line)), values = nullptr, indices = nullptr;
    struct Free {
      AtenTensorHandle h;
      ~Free() {
        if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
      }
    } own{whole};
    // All NaN: the first element (a NaN) is the answer.
    select_kth(*unwrap(whole, "line"), 0, numbers > 0 ? (numbers - 1) / 2 : 0, false, "nanmedian", numbers == 0,
               &values, &indices);
    (void)aoti_torch_delete_tensor_object(indices);
    *ret0 = values;
  });
}
