// aoti_torch_cpu_hann_window: torch.hann_window(L) (periodic=True, the only form with this shim's
// signature) inside a model (STFT front ends, spectrogram features). A new contiguous 1-d tensor
// w[n] = 0.5 - 0.5 * cos(2 * pi * n / L); L = 1: [1]; L = 0: empty. Computed in double and rounded
// once to the dtype (null: float32; float16, bfloat16, float32, float64). The CUDA shim
// (ops/cuda/hann_window.cu) copies this result to the device.
#include <cmath>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_hann_window(int64_t window_length, int32_t* dtype,
                                                                      int32_t* layout, int32_t* device,
                                                                      int32_t device_index_, int32_t* pin_memory,
                                                                      AtenTensorHandle* ret0) {
  (void)device_index_;
  (void)pin_memory;
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(window_length >= 0, "hann_window requires non-negative window length, got window_length=" +
                                            std::to_string(window_length));
    SHIMGEN_REQUIRE(layout == nullptr || *layout == 0, "only the strided layout is supported");
    SHIMGEN_REQUIRE(device == nullptr || *device == kCPU, "aoti_torch_cpu_hann_window makes CPU tensors only");
    const int32_t type = dtype != nullptr ? *dtype : kFloat32;
    auto out = empty_tensor({window_length}, {1}, type, kCPU, -1);
    dispatch_floating(type, "hann_window", [&](auto t) {
      using T = decltype(t);
      auto* dst = reinterpret_cast<T*>(out->data());
      const double step = window_length > 0 ? 2.0 * M_PI / static_cast<double>(window_length) : 0.0;
      for (int64_t n = 0; n < window_length; ++n) {
        const double w = window_length == 1 ? 1.0 : 0.5 - 0.5 * std::cos(step * static_cast<double>(n));
        if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) dst[n] = T(static_cast<float>(w));
        else dst[n] = static_cast<T>(w);
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
