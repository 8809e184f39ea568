// aoti_torch_cuda_randn: standard normal draws, drawn on the host by the runtime's engine.
// Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randn(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                                 int32_t* layout, int32_t* device,
                                                                 int32_t device_index_, int32_t* pin_memory,
                                                                 AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    SHIMGEN_REQUIRE(device == nullptr || *device == kCUDA, "aoti_torch_cuda_randn makes CUDA tensors only");
    s.set_device(device_index_);
    s.run("randn", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_randn(size, size_len_, dtype, layout, nullptr, -1, pin_memory, &r[0]);
    });
  });
}
