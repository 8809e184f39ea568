/*
 * The CUDA part of the shim ABI (PyTorch declares these under USE_CUDA). They are declared and
 * exported in every build so one shim set describes every build; in a CPU-only build they fail
 * with SHIMGEN_RUNTIME_ERROR_UNSUPPORTED. Compiles as C and as C++.
 */
#ifndef SHIMGEN_RUNTIME_SHIM_CUDA_H_
#define SHIMGEN_RUNTIME_SHIM_CUDA_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Switches the calling thread's current device; delete restores the device current at create. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index, CUDAGuardHandle* ret_guard);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard, int32_t device_index);

/* Makes stream the calling thread's current stream of device_index (and that device current);
 * delete restores both. A stream that belongs to another device is rejected. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_cuda_stream_guard(void* stream, int32_t device_index,
                                                                    CUDAStreamGuardHandle* ret_guard);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard);

/* The stream kernels for device_index must use on this thread: the innermost of the caller's
 * selection (when it belongs to that device) and the stream guards; else the legacy default
 * stream (nullptr). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index, void** ret_stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_CUDA_H_ */
