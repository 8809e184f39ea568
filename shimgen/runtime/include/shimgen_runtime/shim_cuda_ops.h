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
                                                          AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                                          double alpha);
/* out[b] = self[b] @ mat2[b]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        AtenTensorHandle mat2);
/* N-C-spatial convolution, 1-D or 2-D, with stride, padding, dilation and groups; bias may be null
 * (or point to null). transposed != 0 is not supported. *ret0 is a new contiguous tensor. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias, const int64_t* stride, int64_t stride_len_,
    const int64_t* padding, int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_, int32_t transposed,
    const int64_t* output_padding, int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0);
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
    int32_t return_debug_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3, int64_t* ret4, int64_t* ret5, AtenTensorHandle* ret6, AtenTensorHandle* ret7,
    AtenTensorHandle* ret8);

/* The same attention with cuDNN attention's outputs (what torch routes bf16 SDPA to on Hopper):
 * attn_bias broadcasts to [B, H, M, N]; key/value may have fewer heads than query (GQA: Hkv divides H).
 * ret0 output (alloc_with_matching_layout of query), ret1 logsumexp float32 [B, H, M, 1], ret2/ret3
 * null (not varlen), ret4/ret5 M and N, ret6/ret7 philox seed/offset (0-d int64 CPU, 0), ret8 null. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_cudnn_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, int32_t return_debug_mask, double* scale,
    AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3, int64_t* ret4,
    int64_t* ret5, AtenTensorHandle* ret6, AtenTensorHandle* ret7, AtenTensorHandle* ret8);
/* The k largest (largest != 0) or smallest values along dim and their int64 positions, sorted;
 * both results contiguous. float32, float16, bfloat16, float64, int64, int32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_topk(AtenTensorHandle self, int64_t k, int64_t dim, int32_t largest,
                                                     int32_t sorted, AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Values and int64 positions sorted along dim, ties in input order (always stable); results take
 * self's dense layout. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort_stable(AtenTensorHandle self, int32_t* stable, int64_t dim,
                                                            int32_t descending, AtenTensorHandle* ret0,
                                                            AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_sort(AtenTensorHandle self, int64_t dim, int32_t descending,
                                                     AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Histogram of a floating tensor in `bins` bins over [min, max] (min == max: the data's range). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_histc(AtenTensorHandle self, int64_t bins, double min, double max,
                                                      AtenTensorHandle* ret0);
/* A new contiguous CUDA tensor of uniform values in [0, 1) (dtype null: float32). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_rand(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                     int32_t* layout, int32_t* device, int32_t device_index_,
                                                     int32_t* pin_memory, AtenTensorHandle* ret0);
/* Fills contiguous `out` (shape `size`) with integers uniform in [low, high); inductor's seeds. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randint_low_out(AtenTensorHandle out, int64_t low, int64_t high,
                                                                const int64_t* size, int64_t size_len_);
/* out [M, N] bfloat16 = self [M, K] bfloat16 @ int4 weights in torch._convert_weight_to_int4pack's
 * layout (int32 [N/8, K/(16*inner_k_tiles), 32, inner_k_tiles/2], inner_k_tiles 2, 4 or 8),
 * dequantized per group of qGroupSize (32, 64, 128, 256) along K as (q - 8) * scale + zero. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__weight_int4pack_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                                    int64_t qGroupSize, AtenTensorHandle qScaleAndZeros,
                                                                    AtenTensorHandle* ret0);

/* torch._grouped_mm for 2-d self [S, K] (rows sorted by group) and 3-d mat2 [E, K, N] with offs [E]
 * (int32 cumulative row counts): ret0 [S, N] in self's dtype. bias must be null. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                            AtenTensorHandle* offs, AtenTensorHandle* bias,
                                                            int32_t* out_dtype, AtenTensorHandle* ret0);

/* ---- Scatter on the device (src/ops/cuda/scatter.cu): out = self, then out[index along dim] is
 * written for every element of index; out may be self (inductor passes one tensor twice). Indices are
 * checked (read back once) before out is written. ---- */
/* reduce: sum, prod, mean, amax, amin; include_self=0 starts each written position from src alone.
 * float32/16, bfloat16, float64 and the integer dtypes (mean of integers floors). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                       int64_t dim, AtenTensorHandle index,
                                                                       AtenTensorHandle src, const char* reduce,
                                                                       int32_t include_self);
/* out[index] = src (any dtype, bool included). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_scatter_src_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                int64_t dim, AtenTensorHandle index,
                                                                AtenTensorHandle src);
/* out[index] = value, converted to self's dtype. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_scatter_value_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                  int64_t dim, AtenTensorHandle index, double value);

/* ---- The wider ring (tests/arch_ring.py); semantics as in shim_cpu_ops.h. The scans (cumsum,
 * cumprod, cummax, cummin, logcumsumexp) and pdist run on the device (src/ops/cuda/scan.cuh,
 * pdist_forward.cu); the others compute with the CPU op on host copies of the inputs
 * (src/ops/cuda/host_staged.h). ---- */
/* Running sum along dim; dtype null: self's, int64 for integer and bool inputs. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cumsum(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                       AtenTensorHandle* ret0);
/* Running product along dim; dtype null: self's, int64 for integer and bool inputs. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cumprod(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                        AtenTensorHandle* ret0);
/* Running maximum / minimum along dim and its int64 index (ties take the later index; NaN sticks). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cummax(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0,
                                                       AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cummin(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0,
                                                       AtenTensorHandle* ret1);
/* log(cumsum(exp(self))) along dim, floating dtypes. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_logcumsumexp(AtenTensorHandle self, int64_t dim,
                                                             AtenTensorHandle* ret0);
/* k-th smallest (1-based) along dim and its int64 index; NaN is largest. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim, int32_t keepdim,
                                                         AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Lower median of all elements, a 0-d tensor; NaN when any element is NaN. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_median(AtenTensorHandle self, AtenTensorHandle* ret0);
/* Bucket of each value in a sorted sequence (1-d, or one row per leading index); int64, or int32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_searchsorted_Tensor(AtenTensorHandle sorted_sequence,
                                                                    AtenTensorHandle self, int32_t out_int32,
                                                                    int32_t right, const char** side,
                                                                    AtenTensorHandle* sorter, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_searchsorted_Scalar(AtenTensorHandle sorted_sequence, double self,
                                                                    int32_t out_int32, int32_t right, const char** side,
                                                                    AtenTensorHandle* sorter, AtenTensorHandle* ret0);
/* p-norm distances between the rows of x1 [*, P, M] and x2 [*, R, M]: [*, P, R]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__cdist_forward(AtenTensorHandle x1, AtenTensorHandle x2, double p,
                                                               int64_t* compute_mode, AtenTensorHandle* ret0);
/* EmbeddingBag (mode 0 sum, 1 mean, 2 max): output [B, D], offset2bag, bag_size, max_indices. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__embedding_bag(AtenTensorHandle weight, AtenTensorHandle indices,
                                                               AtenTensorHandle offsets, int32_t scale_grad_by_freq,
                                                               int64_t mode, int32_t sparse,
                                                               AtenTensorHandle* per_sample_weights,
                                                               int32_t include_last_offset, int64_t padding_idx,
                                                               AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                               AtenTensorHandle* ret2, AtenTensorHandle* ret3);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets, int32_t scale_grad_by_freq,
    int64_t mode, int32_t sparse, AtenTensorHandle* per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3);
/* self with slices index[i] along dim reduced with source's slice i: prod, mean, amax, amin. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_index_reduce(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                                             AtenTensorHandle source, const char* reduce,
                                                             int32_t include_self, AtenTensorHandle* ret0);
/* out = beta * self + alpha * (batch1 @ batch2); self broadcast to out [B, n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                            AtenTensorHandle batch1, AtenTensorHandle batch2,
                                                            double beta, double alpha);
/* A new tensor of `size` of standard normal draws; dtype null: float32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randn(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                      int32_t* layout, int32_t* device, int32_t device_index_,
                                                      int32_t* pin_memory, AtenTensorHandle* ret0);
/* A new tensor like self of normal(mean, std) draws; generator must be null. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_normal_functional(AtenTensorHandle self, double mean, double std,
                                                                  AtenGeneratorHandle* generator,
                                                                  AtenTensorHandle* ret0);

/* searchsorted of every value of self in the 1-d boundaries. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bucketize_Tensor(AtenTensorHandle self, AtenTensorHandle boundaries,
                                                                 int32_t out_int32, int32_t right,
                                                                 AtenTensorHandle* ret0);
/* int64 [n, rank] coordinates of the non-zero elements, row-major order. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_nonzero(AtenTensorHandle self, AtenTensorHandle* ret0);
/* A random permutation of 0..n-1; dtype null: int64. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randperm(int64_t n, int32_t* dtype, int32_t* layout, int32_t* device,
                                                         int32_t device_index_, int32_t* pin_memory,
                                                         AtenTensorHandle* ret0);
/* torch.hann_window(window_length) (periodic): 0.5 - 0.5 * cos(2 * pi * n / L), L = 1: [1]; dtype null:
   float32 (floating dtypes only). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_hann_window(int64_t window_length, int32_t* dtype, int32_t* layout,
                                                            int32_t* device, int32_t device_index_, int32_t* pin_memory,
                                                            AtenTensorHandle* ret0);

/* beta * self + alpha * sum over b of batch1[b] @ batch2[b]: a new [n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_addbmm(AtenTensorHandle self, AtenTensorHandle batch1,
                                                       AtenTensorHandle batch2, double beta, double alpha,
                                                       AtenTensorHandle* ret0);
/* The elements of self where the (broadcast) bool mask is true, 1-d, row-major order. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_masked_select(AtenTensorHandle self, AtenTensorHandle mask,
                                                              AtenTensorHandle* ret0);

/* i repeated repeats[i] times (repeats 1-d int32/int64; output_size null or the sum). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_repeat_interleave_Tensor(AtenTensorHandle repeats, int64_t* output_size,
                                                                         AtenTensorHandle* ret0);
/* Lower median of the non-NaN elements, a 0-d tensor; NaN when all are NaN. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_nanmedian(AtenTensorHandle self, AtenTensorHandle* ret0);
/* p-norm distances between the rows i < j of self [N, M]: [N (N - 1) / 2]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__pdist_forward(AtenTensorHandle self, double p, AtenTensorHandle* ret0);

/* ---- Real architectures (issue 22: FNet, the fft model, mode_counts, DeepSeek-V2); semantics as in
 * shim_cpu_ops.h. Views share the CPU shims' function (src/ops/views.h); complex abs, mul_Tensor and
 * polar run on the device (src/ops/cuda/complex_elementwise.cuh; mul_Tensor and polar also take a
 * 0-d CPU scalar operand), as does index_Tensor's gather (planned on the host: src/ops/index_plan.h);
 * the FFTs and mode compute with the CPU op on host copies (src/ops/cuda/host_staged.h), the FFTs'
 * results laid out as torch's CUDA fake tensors say. ---- */
/* FFTs: complex-to-complex over dim (forward: exp(-2 pi i ...); normalization 0 none, 1 by sqrt(n),
 * 2 by n), and real-to-complex (onesided: the last dim keeps n/2 + 1). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__fft_c2c(AtenTensorHandle self, const int64_t* dim, int64_t dim_len_,
                                                         int64_t normalization, int32_t forward,
                                                         AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__fft_r2c(AtenTensorHandle self, const int64_t* dim, int64_t dim_len_,
                                                         int64_t normalization, int32_t onesided,
                                                         AtenTensorHandle* ret0);
/* Views sharing self's device storage: a complex tensor as real pairs [..., 2], float pairs as
 * complex, dims reordered, dim dropped when its size is 1. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_view_as_real(AtenTensorHandle self, AtenTensorHandle* ret0);
/* self.view(dtype) of a CUDA tensor: metadata only, sharing self's storage (the CPU shim's rules). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_view_dtype(AtenTensorHandle self, int32_t dtype,
                                                           AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_view_as_complex(AtenTensorHandle self, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_permute(AtenTensorHandle self, const int64_t* dims, int64_t dims_len_,
                                                        AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_squeeze_dim(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0);
/* self[..., start:end:step] along dim, a view; torch.reshape, a view or (where torch copies) a new
 * contiguous copy on the device. The CPU shims' own functions (src/ops/views.h). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_slice_Tensor(AtenTensorHandle self, int64_t dim, int64_t* start,
                                                             int64_t* end, int64_t step, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_reshape(AtenTensorHandle self, const int64_t* shape, int64_t shape_len_,
                                                        AtenTensorHandle* ret0);
/* torch.cat along dim: the CPU shim's rules and layout (1-d empty tensors skipped; channels-last when
 * every input is), one device-to-device copy per input; inductor falls back for complex tensors. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cat(const AtenTensorHandle* tensors, int64_t tensors_len_, int64_t dim,
                                                    AtenTensorHandle* ret0);
/* Complex elementwise: |self| (complex -> real), a broadcast product with a complex operand,
 * abs * exp(i angle). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_abs(AtenTensorHandle self, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mul_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                                           AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                                      AtenTensorHandle* ret0);
/* Advanced indexing self[indices] (index tensors, masks, None; CUDA or CPU): a device gather planned on
 * the host, a new tensor in torch's layout (contiguous unless self is not). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_index_Tensor(AtenTensorHandle self, const AtenTensorHandle** indices,
                                                             int64_t indices_len_, AtenTensorHandle* ret0);
/* The most frequent value along dim (ties: the smallest) and its last index. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                                     AtenTensorHandle* ret0, AtenTensorHandle* ret1);

/* F.grid_sample of a volume (aoti_torch_cpu_grid_sampler_3d's contract), staged through the host. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_grid_sampler_3d(AtenTensorHandle input, AtenTensorHandle grid,
                                                                int64_t interpolation_mode, int64_t padding_mode,
                                                                int32_t align_corners, AtenTensorHandle* ret0);
/* The pointwise halves of LSTMCell and GRUCell (torch's _thnn_fused_lstm_cell / _thnn_fused_gru_cell):
 * gates [batch, 4 * hidden] (GRU: 3 * hidden), cx / hx [batch, hidden], biases null or [gates]; hy,
 * cy and torch's workspace. The GRU one has no C shim in torch: the proxy executor calls it. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__thnn_fused_lstm_cell(
    AtenTensorHandle input_gates, AtenTensorHandle hidden_gates, AtenTensorHandle cx, AtenTensorHandle* input_bias,
    AtenTensorHandle* hidden_bias, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__thnn_fused_gru_cell(AtenTensorHandle input_gates,
                                                                     AtenTensorHandle hidden_gates, AtenTensorHandle hx,
                                                                     AtenTensorHandle* input_bias,
                                                                     AtenTensorHandle* hidden_bias,
                                                                     AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Linear algebra: the CPU ops' LAPACK (scipy-openblas32) on host copies, results copied back to the
 * device (src/ops/cuda/host_staged.h); shapes, layouts and errors as the aoti_torch_cpu_ ones. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cholesky_solve(AtenTensorHandle self, AtenTensorHandle input2,
                                                               int32_t upper, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cholesky_inverse(AtenTensorHandle self, int32_t upper,
                                                                 AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_triangular_solve(AtenTensorHandle self, AtenTensorHandle A,
                                                                 int32_t upper, int32_t transpose,
                                                                 int32_t unitriangular, AtenTensorHandle* ret0,
                                                                 AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_geqrf(AtenTensorHandle self, AtenTensorHandle* ret0,
                                                      AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_ormqr(AtenTensorHandle self, AtenTensorHandle input2,
                                                      AtenTensorHandle input3, int32_t left, int32_t transpose,
                                                      AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_lu_unpack(AtenTensorHandle LU_data, AtenTensorHandle LU_pivots,
                                                          int32_t unpack_data, int32_t unpack_pivots,
                                                          AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                          AtenTensorHandle* ret2);

/* The generated block is scripts/gen_host_staged.py's to lay out. */
// clang-format off
/* ---- generated by shimgen from shim_cpu_ops.h and ops/cuda/host_staged_ops.json (scripts/gen_host_staged.py); do not edit ---- */
/* Each: the CPU op of the same name on host copies (ops/cuda/host_staged.h). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_nonzero_static(AtenTensorHandle self, int64_t size, int64_t fill_value, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_gcd(AtenTensorHandle self, AtenTensorHandle other, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_masked_scatter(AtenTensorHandle self, AtenTensorHandle mask, AtenTensorHandle source, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_adaptive_max_pool2d(AtenTensorHandle self, const int64_t* output_size, int64_t output_size_len_, AtenTensorHandle* ret0, AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_adaptive_max_pool3d(AtenTensorHandle self, const int64_t* output_size, int64_t output_size_len_, AtenTensorHandle* ret0, AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__trilinear(AtenTensorHandle i1, AtenTensorHandle i2, AtenTensorHandle i3, const int64_t* expand1, int64_t expand1_len_, const int64_t* expand2, int64_t expand2_len_, const int64_t* expand3, int64_t expand3_len_, const int64_t* sumdim, int64_t sumdim_len_, int64_t unroll_dim, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__weight_int8pack_mm(AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle scales, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__int_mm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_segment_reduce(AtenTensorHandle data, const char* reduce, AtenTensorHandle* lengths, AtenTensorHandle* indices, AtenTensorHandle* offsets, int64_t axis, int32_t unsafe, double* initial, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__adaptive_avg_pool2d(AtenTensorHandle self, const int64_t* output_size, int64_t output_size_len_, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__adaptive_avg_pool3d(AtenTensorHandle self, const int64_t* output_size, int64_t output_size_len_, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_add_Tensor(AtenTensorHandle self, AtenTensorHandle other, double alpha, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_pow_Tensor_Scalar(AtenTensorHandle self, double exponent, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_pow_Scalar(double self, AtenTensorHandle exponent, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_pow_Tensor_Tensor(AtenTensorHandle self, AtenTensorHandle exponent, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_avg_pool2d(AtenTensorHandle self, const int64_t* kernel_size, int64_t kernel_size_len_, const int64_t* stride, int64_t stride_len_, const int64_t* padding, int64_t padding_len_, int32_t ceil_mode, int32_t count_include_pad, int64_t* divisor_override, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_avg_pool3d(AtenTensorHandle self, const int64_t* kernel_size, int64_t kernel_size_len_, const int64_t* stride, int64_t stride_len_, const int64_t* padding, int64_t padding_len_, int32_t ceil_mode, int32_t count_include_pad, int64_t* divisor_override, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_uniform(AtenTensorHandle self, double from, double to, AtenGeneratorHandle* generator, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_mm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle scale_a, AtenTensorHandle scale_b, AtenTensorHandle* bias, AtenTensorHandle* scale_result, int32_t* out_dtype, int32_t use_fast_accum);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_mm(AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle scale_a, AtenTensorHandle scale_b, AtenTensorHandle* bias, AtenTensorHandle* scale_result, int32_t* out_dtype, int32_t use_fast_accum, AtenTensorHandle* ret0);
/* ---- end of generated host-staged ops ---- */
// clang-format on

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_CUDA_OPS_H_ */
