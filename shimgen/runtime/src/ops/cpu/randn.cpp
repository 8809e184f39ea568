// aoti_torch_cpu_randn: torch.randn inside a model (diffusion noise, Gumbel tricks, random
// projections). A new contiguous tensor of standard normal draws from the runtime's engine
// (random.cpp): torch's distribution, not its stream.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randn(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                                int32_t* layout, int32_t* device, int32_t device_index_,
                                                                int32_t* pin_memory, AtenTensorHandle* ret0) {
  (void)device_index_;
  (void)pin_memory;
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    const int32_t type = dtype != nullptr ? *dtype : kFloat32;
    auto out = new_random_tensor("randn", size, size_len_, dtype, layout, device);
    dispatch_floating(type, "randn", [&](auto t) {
      using T = decltype(t);
      auto* dst = reinterpret_cast<T*>(out->data());
      std::lock_guard<std::mutex> lock(random_mutex());
      for (int64_t i = 0, n = out->numel(); i < n; ++i) {
        const double v = normal_double(random_engine());
        if constexpr (std::is_same_v<T, double>) dst[i] = v;
        else dst[i] = T(static_cast<float>(v));
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
