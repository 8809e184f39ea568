// The CUDA fallback ops in a CPU-only build: exported (one shim set describes every build), and
// failing with SHIMGEN_RUNTIME_ERROR_UNSUPPORTED.
#include "internal.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;

namespace {
AOTITorchError unsupported(const char* shim) {
  return guarded(shim, [] { fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "this runtime was built without CUDA"); });
}
}  // namespace

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle,
                                                          AtenTensorHandle, double, double) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_convolution(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*,
                                                            const int64_t*, int64_t, const int64_t*, int64_t,
                                                            const int64_t*, int64_t, int32_t, const int64_t*, int64_t,
                                                            int64_t, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*, int32_t, double, int32_t, double*,
    AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_flash_attention(
    AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, double, int32_t, int32_t, double*, AtenTensorHandle*,
    AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*, int64_t*, int64_t*, AtenTensorHandle*, AtenTensorHandle*,
    AtenTensorHandle*) {
  return unsupported(__func__);
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_cudnn_attention(
    AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*, int32_t, double, int32_t, int32_t, double*,
    AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*, int64_t*, int64_t*, AtenTensorHandle*,
    AtenTensorHandle*, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_topk(AtenTensorHandle, int64_t, int64_t, int32_t, int32_t,
                                                     AtenTensorHandle*, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort_stable(AtenTensorHandle, int32_t*, int64_t, int32_t,
                                                            AtenTensorHandle*, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort(AtenTensorHandle, int64_t, int32_t, AtenTensorHandle*,
                                                     AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_histc(AtenTensorHandle, int64_t, double, double, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_rand(const int64_t*, int64_t, int32_t*, int32_t*, int32_t*, int32_t,
                                                     int32_t*, AtenTensorHandle*) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randint_low_out(AtenTensorHandle, int64_t, int64_t, const int64_t*,
                                                                int64_t) {
  return unsupported(__func__);
}
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__weight_int4pack_mm(AtenTensorHandle, AtenTensorHandle, int64_t,
                                                                    AtenTensorHandle, AtenTensorHandle*) {
  return unsupported(__func__);
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__grouped_mm(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*,
                                                            AtenTensorHandle*, int32_t*, AtenTensorHandle*) {
  return unsupported(__func__);
}

}  // extern "C"
