/* Stands in for AOTInductor-generated model code: it calls the shims by their plain names; the
 * prefix definition that //shims:headers carries renames the calls. Like an AOTInductor .so it
 * does not link the shim library: the process that loads it has loaded libacme_shims.so. */
#include <acme/shims.h>

__attribute__((visibility("default"))) int32_t model_run(void) {
  return aoti_torch_dtype_float32() * 100 + aoti_torch_dtype_int64() * 10 + aoti_torch_device_type_cpu();
}
