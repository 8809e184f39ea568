// Dtype, device-type, layout and memory-format codes: PyTorch's numeric values (c10 enums).
#include "internal.h"

namespace shimgen::rt {

size_t element_size(int32_t dtype) noexcept {
  switch (dtype) {
    case 0: case 1: case 11: case 23: case 24: case 25: case 26: case 44: case 45:
      return 1;  // uint8 int8 bool float8_* float8_e8m0fnu float4_e2m1fn_x2 (two values a byte)
    case 2: case 5: case 15: case 27:
      return 2;  // int16 float16 bfloat16 uint16
    case 3: case 6: case 8: case 28:
      return 4;  // int32 float32 complex32 uint32
    case 4: case 7: case 9: case 29:
      return 8;  // int64 float64 complex64 uint64
    case 10:
      return 16;  // complex128
    default:
      return 0;
  }
}

}  // namespace shimgen::rt

#define SHIMGEN_CODE(name, value)             \
  AOTI_SHIM_EXPORT int32_t name(void) {       \
    shimgen::rt::count_shim_call();           \
    return value;                             \
  }

extern "C" {

SHIMGEN_CODE(aoti_torch_device_type_cpu, 0)
SHIMGEN_CODE(aoti_torch_device_type_cuda, 1)
SHIMGEN_CODE(aoti_torch_device_type_xpu, 12)
SHIMGEN_CODE(aoti_torch_device_type_mps, 13)
SHIMGEN_CODE(aoti_torch_device_type_meta, 14)
SHIMGEN_CODE(aoti_torch_device_type_privateuse1, 20)

SHIMGEN_CODE(aoti_torch_dtype_uint8, 0)
SHIMGEN_CODE(aoti_torch_dtype_int8, 1)
SHIMGEN_CODE(aoti_torch_dtype_int16, 2)
SHIMGEN_CODE(aoti_torch_dtype_int32, 3)
SHIMGEN_CODE(aoti_torch_dtype_int64, 4)
SHIMGEN_CODE(aoti_torch_dtype_float16, 5)
SHIMGEN_CODE(aoti_torch_dtype_float32, 6)
SHIMGEN_CODE(aoti_torch_dtype_float64, 7)
SHIMGEN_CODE(aoti_torch_dtype_complex32, 8)
SHIMGEN_CODE(aoti_torch_dtype_complex64, 9)
SHIMGEN_CODE(aoti_torch_dtype_complex128, 10)
SHIMGEN_CODE(aoti_torch_dtype_bool, 11)
SHIMGEN_CODE(aoti_torch_dtype_bfloat16, 15)
SHIMGEN_CODE(aoti_torch_dtype_float8_e5m2, 23)
SHIMGEN_CODE(aoti_torch_dtype_float8_e4m3fn, 24)
SHIMGEN_CODE(aoti_torch_dtype_float8_e5m2fnuz, 25)
SHIMGEN_CODE(aoti_torch_dtype_float8_e4m3fnuz, 26)
SHIMGEN_CODE(aoti_torch_dtype_uint16, 27)
SHIMGEN_CODE(aoti_torch_dtype_uint32, 28)
SHIMGEN_CODE(aoti_torch_dtype_uint64, 29)
SHIMGEN_CODE(aoti_torch_dtype_float8_e8m0fnu, 44)
SHIMGEN_CODE(aoti_torch_dtype_float4_e2m1fn_x2, 45)

SHIMGEN_CODE(aoti_torch_layout_strided, 0)
SHIMGEN_CODE(aoti_torch_layout_sparse_coo, 1)
SHIMGEN_CODE(aoti_torch_layout_sparse_csr, 2)
SHIMGEN_CODE(aoti_torch_layout__mkldnn, 3)
SHIMGEN_CODE(aoti_torch_layout_sparse_csc, 4)
SHIMGEN_CODE(aoti_torch_layout_sparse_bsr, 5)
SHIMGEN_CODE(aoti_torch_layout_sparse_bsc, 6)
SHIMGEN_CODE(aoti_torch_layout_jagged, 7)

SHIMGEN_CODE(aoti_torch_memory_format_contiguous_format, 0)
SHIMGEN_CODE(aoti_torch_memory_format_preserve_format, 1)
SHIMGEN_CODE(aoti_torch_memory_format_channels_last, 2)
SHIMGEN_CODE(aoti_torch_memory_format_channels_last_3d, 3)

AOTI_SHIM_EXPORT size_t aoti_torch_dtype_element_size(int32_t dtype) {
  shimgen::rt::count_shim_call();
  return shimgen::rt::element_size(dtype);
}

}  // extern "C"
