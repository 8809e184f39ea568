/* A header with every form the scanner must handle. AOTI_SHIM_EXPORT int aoti_in_comment(void); */
#pragma once
#include <stdint.h>
#define AOTI_SHIM_EXPORT __attribute__((visibility("default")))
#define RET_TYPE(t) t
#define AOTI_SHIM_EXPORT_ALIAS(x) \
    AOTI_SHIM_EXPORT int x(void);

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t AOTITorchError;
struct AtenTensorOpaque;
typedef struct AtenTensorOpaque* AtenTensorHandle;

// AOTI_SHIM_EXPORT int aoti_line_comment(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cpu(void);

AOTI_SHIM_EXPORT AOTITorchError
aoti_torch_empty_strided(
    int64_t ndim,
    const int64_t* sizes_ptr,   /* sizes */
    const int64_t* strides_ptr, // strides
    int32_t dtype,
    int32_t device_type,
    int32_t device_index,
    AtenTensorHandle* ret_new_tensor);

AOTI_SHIM_EXPORT RET_TYPE(AOTITorchError) aoti_torch_macro_return(AtenTensorHandle t);

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_with_callback(
    void (*callback)(void* user, int32_t code), void* user);

AOTI_SHIM_EXPORT void (*aoti_torch_returns_fnptr(int which))(int);

#if defined(USE_CUDA)
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index, void** ret);
#elif defined(USE_ROCM)
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_rocm_guard(int32_t device_index, void** ret);
#else
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_only(void);
#endif

#if 0
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_in_if_zero(void);
#endif

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_deprecated(int x) __attribute__((deprecated("use another")));

AOTI_SHIM_EXPORT extern int32_t aoti_torch_global_flag;

int32_t not_exported_helper(int32_t x);
static inline int32_t inline_helper(void) { return AOTI_SHIM_EXPORT_SENTINEL; }

const char* aoti_string = "AOTI_SHIM_EXPORT int aoti_in_string(void);";

#ifdef __cplusplus
}  // extern "C"
namespace shimgen {
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_in_namespace(int x);
}
#endif
