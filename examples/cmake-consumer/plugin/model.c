/* Stands in for AOTInductor-generated model code: it calls the shims by their plain names and
 * never mentions the prefix. export.h (through acme/shims.h) renames the calls. */
#include <acme/shims.h>

#if defined(_WIN32)
#  define MODEL_API __declspec(dllexport)
#else
#  define MODEL_API __attribute__((visibility("default")))
#endif

/* What the model computes with the shims: here, their results packed into one number. */
MODEL_API int32_t model_run(void) {
  return aoti_torch_dtype_float32() * 100 + aoti_torch_dtype_int64() * 10 + aoti_torch_device_type_cpu();
}

/* The address the dynamic linker bound the float32 shim to, for the collision test's dladdr(). */
MODEL_API const void *model_float32_shim(void) { return (const void *)&aoti_torch_dtype_float32; }
