// Device and stream guards, and the current stream, over the device backend.
#include <memory>
#include <string>

#include "internal.h"

struct CUDAGuardOpaque { int32_t original_device; };

struct CUDAStreamGuardOpaque {
  int32_t original_device;
  int32_t device;
  shimgen::rt::CurrentStreamSlot previous;
};

using namespace shimgen::rt;

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index, CUDAGuardHandle* ret_guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_guard != nullptr, "ret_guard is null");
    int32_t target = cuda_resolve_device(device_index);
    auto guard = std::make_unique<CUDAGuardOpaque>(CUDAGuardOpaque{cuda_get_device()});
    cuda_set_device(target);
    *ret_guard = guard.release();
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    std::unique_ptr<CUDAGuardOpaque> owned(guard);  // freed even when restoring the device fails
    cuda_set_device(owned->original_device);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard, int32_t device_index) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    cuda_set_device(cuda_resolve_device(device_index));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_cuda_stream_guard(void* stream, int32_t device_index,
                                                                    CUDAStreamGuardHandle* ret_guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_guard != nullptr, "ret_guard is null");
    int32_t device = cuda_resolve_device(device_index);
    int32_t owner = stream != nullptr ? cuda_stream_device(stream) : -1;
    SHIMGEN_REQUIRE(owner < 0 || owner == device,
                    "stream belongs to device " + std::to_string(owner) + ", not to device " + std::to_string(device));
    auto guard = std::make_unique<CUDAStreamGuardOpaque>(CUDAStreamGuardOpaque{cuda_get_device(), device, {}});
    guard->previous = set_current_stream_slot(device, stream);
    try {
      cuda_set_device(device);
    } catch (...) {
      restore_current_stream_slot(device, guard->previous);  // a failed guard selects nothing
      throw;
    }
    *ret_guard = guard.release();
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    std::unique_ptr<CUDAStreamGuardOpaque> owned(guard);  // freed even when restoring the device fails
    restore_current_stream_slot(owned->device, owned->previous);
    cuda_set_device(owned->original_device);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index, void** ret_stream) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_stream != nullptr, "ret_stream is null");
    *ret_stream = effective_stream(cuda_resolve_device(device_index));
  });
}

}  // extern "C"
