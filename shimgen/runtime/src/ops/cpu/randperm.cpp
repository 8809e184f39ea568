// aoti_torch_cpu_randperm: torch.randperm inside a model (token/patch shuffling, random masking as
// MAE-style encoders do). A new contiguous 1-d tensor holding a uniform random permutation of
// 0..n-1 (Fisher-Yates on the runtime's engine, random.cpp); dtype null: int64.
#include <numeric>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randperm(int64_t n, int32_t* dtype, int32_t* layout,
                                                                   int32_t* device, int32_t device_index_,
                                                                   int32_t* pin_memory, AtenTensorHandle* ret0) {
  (void)device_index_;
  (void)pin_memory;
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(n >= 0, "n must be non-negative, got " + std::to_string(n));
    SHIMGEN_REQUIRE(layout == nullptr || *layout == 0, "only the strided layout is supported");
    SHIMGEN_REQUIRE(device == nullptr || *device == kCPU, "aoti_torch_cpu_randperm makes CPU tensors only");
    const int32_t type = dtype != nullptr ? *dtype : kInt64;
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    {
      std::lock_guard<std::mutex> lock(random_mutex());
      for (int64_t i = n - 1; i > 0; --i) {
        std::uniform_int_distribution<int64_t> pick(0, i);
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(pick(random_engine()))]);
      }
    }
    auto out = empty_tensor({n}, {1}, type, kCPU, -1);
    dispatch_real(type, "randperm", [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_same_v<T, bool>) {
        SHIMGEN_REQUIRE(n <= 2, "randperm: n is too large for bool");
      }
      auto* dst = reinterpret_cast<T*>(out->data());
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>)
          dst[i] = T(static_cast<float>(perm[static_cast<size_t>(i)]));
        else dst[i] = static_cast<T>(perm[static_cast<size_t>(i)]);
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
