/* A C consumer: the headers compile as C, and the plain names resolve to the prefixed shims. */
#include <stdio.h>
#include <string.h>

#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"
#include "shimgen_runtime/shim_cuda.h"

int main(void) {
  uint64_t before = shimgen_runtime_shim_call_count();
  int64_t sizes[2] = {3, 5};
  AtenTensorHandle tensor = NULL;
  if (aoti_torch_empty_strided(2, sizes, NULL, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &tensor))
    return 1;
  int64_t* strides = NULL;
  if (aoti_torch_get_strides(tensor, &strides) || strides[0] != 5 || strides[1] != 1) return 1;
  if (aoti_torch_get_dim(NULL, NULL) != SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT) return 1;
  if (strstr(shimgen_runtime_last_error(), "aoti_torch_get_dim") == NULL) return 1;
  if (aoti_torch_delete_tensor_object(tensor)) return 1;
  if (shimgen_runtime_shim_call_count() != before + 6) return 1;
  printf("c_consumer: ok\n");
  return 0;
}
