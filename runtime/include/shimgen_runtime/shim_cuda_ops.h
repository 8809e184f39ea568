/*
 * CUDA fallback ops that AOTInductor calls when it does not generate the kernel itself. Measured on
 * torch 2.11+cu130 with link_libtorch=False: Linear imports aoti_torch_cuda_addmm_out and
 * aoti_torch_cuda_mm_out, scaled_dot_product_attention imports
 * aoti_torch_cuda__scaled_dot_product_efficient_attention, Conv2d imports aoti_torch_cuda_convolution.
 * Signatures are identical to PyTorch's generated c_shim_cuda.h (torch 2.11 and 2.13 agree).
 *
 * Every op runs on the effective stream of its tensors' device (the caller's selection, else the
 * current stream: docs/runtime.md), checks its arguments and returns an error code. GEMMs go through
 * cuBLAS (float32 with float32 accumulation, no TF32; float16 and bfloat16 accumulating in float32);
 * convolution is an im2col kernel plus the same cuBLAS GEMM; attention is the runtime's own
 * online-softmax kernel. In a CPU-only build each op fails with SHIMGEN_RUNTIME_ERROR_UNSUPPORTED.
 * Compiles as C and as C++.
 */
#ifndef SHIMGEN_RUNTIME_SHIM_CUDA_OPS_H_
#define SHIMGEN_RUNTIME_SHIM_CUDA_OPS_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = self @ mat2; self [n, k], mat2 [k, m], out [n, m]; any strides. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                       AtenTensorHandle mat2);
/* out = beta * self + alpha * (mat1 @ mat2); self broadcasts to out (0-d, [m], [1, m], [n, 1], [n, m]). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                          AtenTensorHandle mat1, AtenTensorHandle mat2,
                                                          double beta, double alpha);
/* out[b] = self[b] @ mat2[b]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        AtenTensorHandle mat2);
/* N-C-spatial convolution, 1-D or 2-D, with stride, padding, dilation and groups; bias may be null
 * (or point to null). transposed != 0 is not supported. *ret0 is a new contiguous tensor. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias, const int64_t* stride,
    int64_t stride_len_, const int64_t* padding, int64_t padding_len_, const int64_t* dilation,
    int64_t dilation_len_, int32_t transposed, const int64_t* output_padding, int64_t output_padding_len_,
    int64_t groups, AtenTensorHandle* ret0);
/* softmax(q k^T * scale + attn_bias, causal mask) v for q [B, H, M, K], k [B, H, N, K], v [B, H, N, Kv].
 * ret0: output [B, H, M, Kv] laid out as [B, M, H, Kv] transposed (PyTorch's meta strides);
 * ret1: logsumexp, float32 [B, H, ceil(M/32)*32] when compute_log_sumexp, else [B, H, 0];
 * ret2, ret3: philox seed and offset, 0-d int64 CPU tensors (0: no dropout). dropout_p must be 0. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, double* scale, AtenTensorHandle* ret0,
    AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3);
/* The same attention with flash-attention's outputs: ret0 output (query's strides), ret1 logsumexp
 * float32 [B, H, M], ret2/ret3 cumulative sequence lengths (null: not varlen), ret4/ret5 M and N,
 * ret6/ret7 philox seed/offset (0-d int64 CPU), ret8 debug mask (empty; return_debug_mask must be 0). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_flash_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p, int32_t is_causal,
    int32_t return_debug_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
    AtenTensorHandle* ret2, AtenTensorHandle* ret3, int64_t* ret4, int64_t* ret5, AtenTensorHandle* ret6,
    AtenTensorHandle* ret7, AtenTensorHandle* ret8);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_CUDA_OPS_H_ */
