// Dtype, device-type, layout and memory-format codes: PyTorch's numeric values (c10 enums).
#include "internal.h"

namespace shimgen::rt {

size_t element_size(int32_t dtype) noexcept {
  switch (dtype) {
    case kUInt8:
    case kInt8:
    case kBool:
    case kFloat8_e5m2:
    case kFloat8_e4m3fn:
    case kFloat8_e5m2fnuz:
    case kFloat8_e4m3fnuz:
    case kFloat8_e8m0fnu:
    case kFloat4_e2m1fn_x2: return 1;  // float4_e2m1fn_x2 holds two values a byte
    case kInt16:
    case kFloat16:
    case kBFloat16:
    case kUInt16: return 2;
    case kInt32:
    case kFloat32:
    case kComplex32:
    case kUInt32: return 4;
    case kInt64:
    case kFloat64:
    case kComplex64:
    case kUInt64: return 8;
    case kComplex128: return 16;
    default: return 0;
  }
}

}  // namespace shimgen::rt

#define SHIMGEN_CODE(name, value)       \
  AOTI_SHIM_EXPORT int32_t name(void) { \
    shimgen::rt::count_shim_call();     \
    return value;                       \
  }

extern "C" {

SHIMGEN_CODE(aoti_torch_device_type_cpu, shimgen::rt::kCPU)
SHIMGEN_CODE(aoti_torch_device_type_cuda, shimgen::rt::kCUDA)
SHIMGEN_CODE(aoti_torch_device_type_xpu, 12)
SHIMGEN_CODE(aoti_torch_device_type_mps, 13)
SHIMGEN_CODE(aoti_torch_device_type_meta, 14)
SHIMGEN_CODE(aoti_torch_device_type_privateuse1, 20)

SHIMGEN_CODE(aoti_torch_dtype_uint8, shimgen::rt::kUInt8)
SHIMGEN_CODE(aoti_torch_dtype_int8, shimgen::rt::kInt8)
SHIMGEN_CODE(aoti_torch_dtype_int16, shimgen::rt::kInt16)
SHIMGEN_CODE(aoti_torch_dtype_int32, shimgen::rt::kInt32)
SHIMGEN_CODE(aoti_torch_dtype_int64, shimgen::rt::kInt64)
SHIMGEN_CODE(aoti_torch_dtype_float16, shimgen::rt::kFloat16)
SHIMGEN_CODE(aoti_torch_dtype_float32, shimgen::rt::kFloat32)
SHIMGEN_CODE(aoti_torch_dtype_float64, shimgen::rt::kFloat64)
SHIMGEN_CODE(aoti_torch_dtype_complex32, shimgen::rt::kComplex32)
SHIMGEN_CODE(aoti_torch_dtype_complex64, shimgen::rt::kComplex64)
SHIMGEN_CODE(aoti_torch_dtype_complex128, shimgen::rt::kComplex128)
SHIMGEN_CODE(aoti_torch_dtype_bool, shimgen::rt::kBool)
SHIMGEN_CODE(aoti_torch_dtype_bfloat16, shimgen::rt::kBFloat16)
SHIMGEN_CODE(aoti_torch_dtype_float8_e5m2, shimgen::rt::kFloat8_e5m2)
SHIMGEN_CODE(aoti_torch_dtype_float8_e4m3fn, shimgen::rt::kFloat8_e4m3fn)
SHIMGEN_CODE(aoti_torch_dtype_float8_e5m2fnuz, shimgen::rt::kFloat8_e5m2fnuz)
SHIMGEN_CODE(aoti_torch_dtype_float8_e4m3fnuz, shimgen::rt::kFloat8_e4m3fnuz)
SHIMGEN_CODE(aoti_torch_dtype_uint16, shimgen::rt::kUInt16)
SHIMGEN_CODE(aoti_torch_dtype_uint32, shimgen::rt::kUInt32)
SHIMGEN_CODE(aoti_torch_dtype_uint64, shimgen::rt::kUInt64)
SHIMGEN_CODE(aoti_torch_dtype_float8_e8m0fnu, shimgen::rt::kFloat8_e8m0fnu)
SHIMGEN_CODE(aoti_torch_dtype_float4_e2m1fn_x2, shimgen::rt::kFloat4_e2m1fn_x2)

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
