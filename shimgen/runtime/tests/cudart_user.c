/* Stands in for an AOTInductor CUDA model: it calls the CUDA runtime but is linked with no
 * DT_NEEDED on libcudart, so it loads only where the process already has libcudart in its global
 * scope (libshimgen_runtime.so dlopen'ed with RTLD_GLOBAL). */
#include <cuda_runtime_api.h>

__attribute__((visibility("default"))) int cudart_user_device_count(int* count) {
  return (int)cudaGetDeviceCount(count);
}
