// aoti_torch_cuda__grouped_mm: torch._grouped_mm, the expert GEMM transformers' MoE layers call in
// bfloat16 on Hopper, for its 2-d x 3-d case (input [S, K] sorted by group, weight [E, K, N],
// offs [E] cumulative row counts). Served by the runtime's grouped GEMM (one cuBLAS mm_out per group).
#include "../../proxy_executor.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                                       AtenTensorHandle* offs, AtenTensorHandle* bias,
                                                                       int32_t* out_dtype, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const Tensor& a = cuda_arg(self, "self");
    const Tensor& b = cuda_arg(mat2, "mat2");
    if (bias != nullptr && *bias != nullptr)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "_grouped_mm with a bias is not supported");
    SHIMGEN_REQUIRE(out_dtype == nullptr || *out_dtype == a.dtype,
                    "out_dtype other than self's dtype is not supported");
    if (a.sizes.size() != 2 || b.sizes.size() != 3 || offs == nullptr || *offs == nullptr) {
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "only _grouped_mm(2-d self, 3-d mat2, offs) is supported");
    }
    (void)cuda_arg(*offs, "offs", 1);
    SHIMGEN_REQUIRE(floating(a.dtype) && a.dtype == b.dtype, "self and mat2 must share a floating dtype");
    *ret0 = proxy::grouped_mm(self, mat2, *offs);
  });
}
