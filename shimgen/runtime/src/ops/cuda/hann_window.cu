// aoti_torch_cuda_hann_window: torch.hann_window(L) on the device (the STFT front ends of the ring's
// fft and stft_istft models). Computed by the CPU op on the host (hann_window.cpp: one
// implementation, the same values on both devices) and copied to the device (host_staged.h).
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_hann_window(int64_t window_length, int32_t* dtype,
                                                                       int32_t* layout, int32_t* device,
                                                                       int32_t device_index_, int32_t* pin_memory,
                                                                       AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    SHIMGEN_REQUIRE(device == nullptr || *device == kCUDA, "aoti_torch_cuda_hann_window makes CUDA tensors only");
    s.set_device(device_index_);
    s.run("hann_window", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_hann_window(window_length, dtype, layout, nullptr, -1, pin_memory, &r[0]);
    });
  });
}
