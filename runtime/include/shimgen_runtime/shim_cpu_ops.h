/*
 * CPU fallback ops that AOTInductor calls when it does not generate the kernel itself. A model with
 * a matmul, compiled by torch 2.13 for the CPU with link_libtorch=False, imports
 * aoti_torch_cpu_mm_out (nm -D on the model's .so); Linear with bias lowers to addmm_out, batched
 * matmul to bmm_out. Signatures are identical to PyTorch's generated c_shim_cpu.h.
 *
 * The implementation is a plain loop over any strides (float32 and float64, accumulating in
 * double): correct, not fast. Compiles as C and as C++.
 */
#ifndef SHIMGEN_RUNTIME_SHIM_CPU_OPS_H_
#define SHIMGEN_RUNTIME_SHIM_CPU_OPS_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = self @ mat2; self [n, k], mat2 [k, m], out [n, m], all CPU tensors of one dtype. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                      AtenTensorHandle mat2);
/* out = beta * self + alpha * (mat1 @ mat2); self broadcasts to out's [n, m] (0-d, [m] or [n, m]). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                         AtenTensorHandle mat1, AtenTensorHandle mat2,
                                                         double beta, double alpha);
/* out[b] = self[b] @ mat2[b]; self [B, n, k], mat2 [B, k, m], out [B, n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                       AtenTensorHandle mat2);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_CPU_OPS_H_ */
