/*
 * CPU fallback ops that AOTInductor calls when it does not generate the kernel itself. A model with
 * a matmul, compiled by torch 2.13 for the CPU with link_libtorch=False, imports
 * aoti_torch_cpu_mm_out (nm -D on the model's .so); Linear with bias lowers to addmm_out, batched
 * matmul to bmm_out. Signatures are identical to PyTorch's generated c_shim_cpu.h.
 *
 * GEMMs go through the BLAS of scipy-openblas32 (scipy_-prefixed symbols), float32 and float64, any
 * strides (operands the BLAS cannot address are packed); bfloat16 and float16 GEMMs and attention
 * are computed in float32 and rounded once, as torch's CPU kernels accumulate. Every op checks its arguments and
 * returns an error code (message in shimgen_runtime_last_error()) instead of crashing. Compiles as C and C++.
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
                                                         AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                                         double alpha);
/* out[b] = self[b] @ mat2[b]; self [B, n, k], mat2 [B, k, m], out [B, n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                       AtenTensorHandle mat2);

/* N-d convolution (1-3 spatial dims): input [N, C, *], weight [O, C/groups, *k], bias null or [O];
 * stride/padding/dilation hold 1 or (spatial) values. transposed: weight [C, O/groups, *k] and
 * output_padding. float32/64, bfloat16/float16 (computed in float32). The new output is
 * channels-last when input or weight is (PyTorch's rule), else contiguous. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias, const int64_t* stride, int64_t stride_len_,
    const int64_t* padding, int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_, int32_t transposed,
    const int64_t* output_padding, int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0);
/* softmax(q k^T * scale [+ mask]) v; q [B,H,L,E], k [B,H,S,E], v [B,H,S,Ev]; scale null: 1/sqrt(E);
 * attn_mask null, or bool/additive broadcast to [B,H,L,S]; dropout_p must be 0. ret0: output,
 * ret1: logsumexp [B,H,L]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p, int32_t is_causal,
    AtenTensorHandle* attn_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1);

/* ---- Ops of real architectures (one file each under src/ops/cpu/; docs/coverage.md lists who
 * imports them). New tensors are contiguous unless said otherwise; dims may be negative. ---- */
/* Running sum along dim; dtype null: self's, int64 for integer and bool inputs. Decoder LLMs. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                      AtenTensorHandle* ret0);
/* out = self, then out[index] <reduce>= src along dim; reduce: sum, prod, mean, amax, amin. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                      int64_t dim, AtenTensorHandle index,
                                                                      AtenTensorHandle src, const char* reduce,
                                                                      int32_t include_self);
/* k largest (largest != 0) or smallest values along dim, sorted, and their int64 indices. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_topk(AtenTensorHandle self, int64_t k, int64_t dim, int32_t largest,
                                                    int32_t sorted, AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Stable sort along dim: values (self's strides when dense) and int64 indices; NaN is largest. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_sort_stable(AtenTensorHandle self, int32_t* stable, int64_t dim,
                                                           int32_t descending, AtenTensorHandle* ret0,
                                                           AtenTensorHandle* ret1);
/* Weight-only quantized linears (torchao's int8/int4 weight-only CPU paths): out [M, N] = A [M, K] @
 * dequant(W)^T, A float32/bfloat16/float16, float32 sums rounded once to A's dtype.
 * int8: mat2 int8 [N, K] contiguous, scales [N] of A's dtype: (A @ mat2^T) * scales. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__weight_int8pack_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                                   AtenTensorHandle scales, AtenTensorHandle* ret0);
/* int4 (aten._weight_int4pack_mm_for_cpu): w uint8 [N, K/2] in torch's CPU packed layout
 * (_convert_weight_to_int4pack_for_cpu), qGroupSize a one-element int64 tensor (32/64/128/256),
 * qScaleAndZeros [K/qGroupSize, N, 2] of A's dtype: W[n, k] = (code - 8) * scale + zero. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__weight_int4pack_mm_cpu_tensor(AtenTensorHandle X, AtenTensorHandle w,
                                                                              AtenTensorHandle qGroupSize,
                                                                              AtenTensorHandle qScaleAndZeros,
                                                                              AtenTensorHandle* ret0);
/* torch._grouped_mm (transformers' MoE experts in bfloat16): one product per group, float32, bfloat16
 * or float16 operands of one dtype, any strides. offs (int32, 1-d, cumulative ends) splits the 2-d
 * operand's free dim: 2-d self [M, K] x 3-d mat2 [G, K, N] -> [M, N] (rows of group g times mat2[g]);
 * 2-d x 2-d [M, K] x [K, N] -> [G, M, N] (offs splits K); 3-d x 2-d [G, M, K] x [K, N] -> [M, N]
 * (offs splits N); 3-d x 3-d without offs is bmm. Where torch leaves memory unset (rows or columns
 * past the last offset) the result is 0. bias and an out_dtype other than self's are refused as torch
 * refuses them. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                           AtenTensorHandle* offs, AtenTensorHandle* bias,
                                                           int32_t* out_dtype, AtenTensorHandle* ret0);
/* Histogram of self in `bins` equal bins over [min, max] (min == max: the data's range). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_histc(AtenTensorHandle self, int64_t bins, double min, double max,
                                                     AtenTensorHandle* ret0);
/* The oneDNN-fused ops of a model compiled with inductor's freezing=True (ops/cpu/mkldnn_fused.h):
 * prepacked weights arrive as plain dense tensors (aoti_torch_create_tensor_from_blob_v2 unpacks
 * layout _mkldnn). attr / unary_attr: none, relu, sigmoid, tanh, hardswish, hardsigmoid, swish,
 * gelu (algorithm none / tanh), leaky_relu [slope], hardtanh [min, max]; binary_attr: add, sub,
 * mul, div (computed OP other). float32, bfloat16, float16: computed in float32, rounded once. */
/* unary(X @ W^T + B): X [..., K], W [N, K], B [N] or null; a new contiguous [..., N]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__linear_pointwise(AtenTensorHandle X, AtenTensorHandle W,
                                                                 AtenTensorHandle* B, const char* attr,
                                                                 const double** scalars, int64_t scalars_len_,
                                                                 const char** algorithm, AtenTensorHandle* ret0);
/* (X @ W^T + B) attr other, other of the output's sizes; a new contiguous [..., N]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__linear_pointwise_binary(AtenTensorHandle X, AtenTensorHandle other,
                                                                        AtenTensorHandle W, AtenTensorHandle* B,
                                                                        const char* attr, AtenTensorHandle* ret0);
/* unary(conv(X, W) + B): W [O, C/groups, *k]; channels-last when X is. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise(
    AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding, int64_t padding_len_,
    const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_, int64_t groups,
    const char* attr, const double** scalars, int64_t scalars_len_, const char** algorithm, AtenTensorHandle* ret0);
/* unary(conv(X, W) + B  binary_attr  other), a new tensor; alpha null or 1. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise_binary(
    AtenTensorHandle X, AtenTensorHandle other, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding,
    int64_t padding_len_, const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, const char* binary_attr, double* alpha, const char** unary_attr, const double** unary_scalars,
    int64_t unary_scalars_len_, const char** unary_algorithm, AtenTensorHandle* ret0);
/* The same written into other; ret0 a new handle onto other. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise_binary_(
    AtenTensorHandle other, AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding,
    int64_t padding_len_, const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, const char* binary_attr, double* alpha, const char** unary_attr, const double** unary_scalars,
    int64_t unary_scalars_len_, const char** unary_algorithm, AtenTensorHandle* ret0);
/* unary(conv_transpose(X, W) + B): W a prepacked [O, I/groups, *k] or torch's [I, O/groups, *k]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn__convolution_transpose_pointwise(
    AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding, int64_t padding_len_,
    const int64_t* output_padding, int64_t output_padding_len_, const int64_t* stride, int64_t stride_len_,
    const int64_t* dilation, int64_t dilation_len_, int64_t groups, const char* attr, const double** scalars,
    int64_t scalars_len_, const char** algorithm, AtenTensorHandle* ret0);
/* The int8 oneDNN ops of a PT2E-quantized (X86InductorQuantizer) model compiled with freezing=True
 * (ops/cpu/onednn_quant.h): X uint8/int8 with per-tensor act_scale / act_zero_point tensors, the
 * prepacked int8 weight (Linear [K, N], conv [O, C/g, KH, KW]), per-channel weight scales (zero
 * points 0), bias; int32 products, then scale, bias, binary ("sum" into other/accum, or "add"),
 * unary post-op, and requantization (round half to even, saturate) to output_scale /
 * output_zero_point, or float32/bfloat16 output. output_dtype null: X's own (uint8 or int8). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__qlinear_pointwise_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* B, double output_scale,
    int64_t output_zero_point, const int32_t* output_dtype, const char* post_op_name, const double** post_op_args,
    int64_t post_op_args_len_, const char* post_op_algorithm, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__qlinear_pointwise_binary_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* other, AtenTensorHandle* B,
    double output_scale, int64_t output_zero_point, const int32_t* output_dtype, double other_scale,
    int64_t other_zero_point, const char* binary_post_op, double binary_alpha, const char* unary_post_op,
    const double** unary_post_op_args, int64_t unary_post_op_args_len_, const char* unary_post_op_algorithm,
    AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__qconv_pointwise_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* B, const int64_t* stride,
    int64_t stride_len_, const int64_t* padding, int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, double output_scale, int64_t output_zero_point, const int32_t* output_dtype, const char* attr,
    const double** post_op_args, int64_t post_op_args_len_, const char** algorithm, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__qconv2d_pointwise_binary_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle accum, AtenTensorHandle* B,
    const int64_t* stride_args, int64_t stride_len_, const int64_t* padding_args, int64_t padding_len_,
    const int64_t* dilation_args, int64_t dilation_len_, int64_t groups, double output_scale, int64_t output_zero_point,
    const int32_t* output_dtype, double accum_scale, int64_t accum_zero_point, const char* binary_attr, double* alpha,
    const char** unary_attr, const double** unary_scalars, int64_t unary_scalars_len_, const char** unary_algorithm,
    AtenTensorHandle* ret0);
/* One LSTM layer (mode 2), one direction, float32, inference: y, hy, cy and an empty workspace. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn_rnn_layer(
    AtenTensorHandle input, AtenTensorHandle weight0, AtenTensorHandle weight1, AtenTensorHandle weight2,
    AtenTensorHandle weight3, AtenTensorHandle hx_, AtenTensorHandle cx_, int32_t reverse, const int64_t* batch_sizes,
    int64_t batch_sizes_len_, int64_t mode, int64_t hidden_size, int64_t num_layers, int32_t has_biases,
    int32_t bidirectional, int32_t batch_first, int32_t train, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
    AtenTensorHandle* ret2, AtenTensorHandle* ret3);
/* Fills out (int64 or int32, contiguous, shape `size`) with integers uniform in [low, high). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randint_low_out(AtenTensorHandle out, int64_t low, int64_t high,
                                                               const int64_t* size, int64_t size_len_);
/* A new tensor of `size` uniform in [0, 1); dtype null: float32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_rand(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                    int32_t* layout, int32_t* device, int32_t device_index_,
                                                    int32_t* pin_memory, AtenTensorHandle* ret0);

/* ---- The wider ring (tests/arch_ring.py): scans, selections, distances, bags, noise. ---- */
/* Running product along dim; dtype null: self's, int64 for integer and bool inputs. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cumprod(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                       AtenTensorHandle* ret0);
/* Running maximum / minimum along dim and its int64 index (ties take the later index; NaN sticks). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cummax(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0,
                                                      AtenTensorHandle* ret1);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cummin(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0,
                                                      AtenTensorHandle* ret1);
/* log(cumsum(exp(self))) along dim, floating dtypes. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_logcumsumexp(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0);
/* k-th smallest (1-based) along dim and its int64 index; NaN is largest. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim, int32_t keepdim,
                                                        AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Lower median of all elements, a 0-d tensor; NaN when any element is NaN. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_median(AtenTensorHandle self, AtenTensorHandle* ret0);
/* Bucket of each value in a sorted sequence (1-d, or one row per leading index); int64, or int32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_searchsorted_Tensor(AtenTensorHandle sorted_sequence,
                                                                   AtenTensorHandle self, int32_t out_int32,
                                                                   int32_t right, const char** side,
                                                                   AtenTensorHandle* sorter, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_searchsorted_Scalar(AtenTensorHandle sorted_sequence, double self,
                                                                   int32_t out_int32, int32_t right, const char** side,
                                                                   AtenTensorHandle* sorter, AtenTensorHandle* ret0);
/* p-norm distances between the rows of x1 [*, P, M] and x2 [*, R, M]: [*, P, R]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__cdist_forward(AtenTensorHandle x1, AtenTensorHandle x2, double p,
                                                              int64_t* compute_mode, AtenTensorHandle* ret0);
/* EmbeddingBag (mode 0 sum, 1 mean, 2 max): output [B, D], offset2bag, bag_size, max_indices. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__embedding_bag(AtenTensorHandle weight, AtenTensorHandle indices,
                                                              AtenTensorHandle offsets, int32_t scale_grad_by_freq,
                                                              int64_t mode, int32_t sparse,
                                                              AtenTensorHandle* per_sample_weights,
                                                              int32_t include_last_offset, int64_t padding_idx,
                                                              AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                              AtenTensorHandle* ret2, AtenTensorHandle* ret3);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets, int32_t scale_grad_by_freq,
    int64_t mode, int32_t sparse, AtenTensorHandle* per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3);
/* self with slices index[i] along dim reduced with source's slice i: prod, mean, amax, amin. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_reduce(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                                            AtenTensorHandle source, const char* reduce,
                                                            int32_t include_self, AtenTensorHandle* ret0);
/* out = beta * self + alpha * (batch1 @ batch2); self broadcast to out [B, n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                           AtenTensorHandle batch1, AtenTensorHandle batch2,
                                                           double beta, double alpha);
/* A new tensor of `size` of standard normal draws; dtype null: float32. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randn(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                     int32_t* layout, int32_t* device, int32_t device_index_,
                                                     int32_t* pin_memory, AtenTensorHandle* ret0);
/* A new tensor like self of normal(mean, std) draws; generator must be null. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_normal_functional(AtenTensorHandle self, double mean, double std,
                                                                 AtenGeneratorHandle* generator,
                                                                 AtenTensorHandle* ret0);
/* A new tensor like self (self's values unread) of uniform draws in [from, to) (aten.uniform, the
   functional x.uniform_(from, to)); floating and complex dtypes; generator must be null. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_uniform(AtenTensorHandle self, double from, double to,
                                                       AtenGeneratorHandle* generator, AtenTensorHandle* ret0);

/* searchsorted of every value of self in the 1-d boundaries. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_bucketize_Tensor(AtenTensorHandle self, AtenTensorHandle boundaries,
                                                                int32_t out_int32, int32_t right,
                                                                AtenTensorHandle* ret0);
/* int64 [n, rank] coordinates of the non-zero elements, row-major order. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nonzero(AtenTensorHandle self, AtenTensorHandle* ret0);
/* A random permutation of 0..n-1; dtype null: int64. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randperm(int64_t n, int32_t* dtype, int32_t* layout, int32_t* device,
                                                        int32_t device_index_, int32_t* pin_memory,
                                                        AtenTensorHandle* ret0);
/* torch.hann_window(window_length) (periodic): 0.5 - 0.5 * cos(2 * pi * n / L), L = 1: [1]; dtype null:
   float32 (floating dtypes only). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_hann_window(int64_t window_length, int32_t* dtype, int32_t* layout,
                                                           int32_t* device, int32_t device_index_, int32_t* pin_memory,
                                                           AtenTensorHandle* ret0);

/* beta * self + alpha * sum over b of batch1[b] @ batch2[b]: a new [n, m]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_addbmm(AtenTensorHandle self, AtenTensorHandle batch1,
                                                      AtenTensorHandle batch2, double beta, double alpha,
                                                      AtenTensorHandle* ret0);
/* The elements of self where the (broadcast) bool mask is true, 1-d, row-major order. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_masked_select(AtenTensorHandle self, AtenTensorHandle mask,
                                                             AtenTensorHandle* ret0);

/* i repeated repeats[i] times (repeats 1-d int32/int64; output_size null or the sum). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_repeat_interleave_Tensor(AtenTensorHandle repeats, int64_t* output_size,
                                                                        AtenTensorHandle* ret0);
/* Lower median of the non-NaN elements, a 0-d tensor; NaN when all are NaN. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nanmedian(AtenTensorHandle self, AtenTensorHandle* ret0);
/* p-norm distances between the rows i < j of self [N, M]: [N (N - 1) / 2]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__pdist_forward(AtenTensorHandle self, double p, AtenTensorHandle* ret0);

/* FFTs (fft.h): complex-to-complex over dim (forward: exp(-2 pi i ...); normalization 0 none, 1 by
 * sqrt(n), 2 by n), and real-to-complex (onesided: the last dim keeps n/2 + 1); torch's layouts. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__fft_c2c(AtenTensorHandle self, const int64_t* dim, int64_t dim_len_,
                                                        int64_t normalization, int32_t forward, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__fft_r2c(AtenTensorHandle self, const int64_t* dim, int64_t dim_len_,
                                                        int64_t normalization, int32_t onesided,
                                                        AtenTensorHandle* ret0);
/* Views sharing self's storage: a complex tensor as real pairs [..., 2]; dims reordered; dim dropped
 * when its size is 1. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_as_real(AtenTensorHandle self, AtenTensorHandle* ret0);
/* The inverse: float pairs [..., 2] (last stride 1, other strides and offset even) as complex. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_as_complex(AtenTensorHandle self, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_permute(AtenTensorHandle self, const int64_t* dims, int64_t dims_len_,
                                                       AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_squeeze_dim(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0);
/* self[..., start:end:step] along dim, a view (start / end null for None, clamped as torch; step > 0). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_slice_Tensor(AtenTensorHandle self, int64_t dim, int64_t* start,
                                                            int64_t* end, int64_t step, AtenTensorHandle* ret0);
/* torch.cat along dim (1-d empty tensors skipped, as torch's legacy rule): a new tensor, channels-last
 * when every input is, else contiguous; one dtype for every input (inductor falls back for complex). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cat(const AtenTensorHandle* tensors, int64_t tensors_len_, int64_t dim,
                                                   AtenTensorHandle* ret0);
/* torch.reshape (one -1 inferred): a view when torch's would be one, else a new contiguous copy. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_reshape(AtenTensorHandle self, const int64_t* shape, int64_t shape_len_,
                                                       AtenTensorHandle* ret0);
/* Complex elementwise (inductor falls back for complex tensors): |self| (complex -> real), a
 * broadcast product with a complex operand, abs * exp(i angle). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_abs(AtenTensorHandle self, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mul_Tensor(AtenTensorHandle self, AtenTensorHandle other,
                                                          AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                                     AtenTensorHandle* ret0);
/* Advanced indexing self[indices]: indices[i] null (None) or a handle to an int64/int32 index tensor
 * or a bool/uint8 mask; a new tensor in torch's layout (contiguous unless self is not). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_Tensor(AtenTensorHandle self, const AtenTensorHandle** indices,
                                                            int64_t indices_len_, AtenTensorHandle* ret0);
/* The most frequent value along dim (ties: the smallest) and its last index. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                                    AtenTensorHandle* ret0, AtenTensorHandle* ret1);

/* F.grid_sample of a volume: input [N, C, D, H, W], grid [N, D', H', W', 3]; interpolation 0
 * trilinear, 1 nearest; padding 0 zeros, 1 border, 2 reflection. A new contiguous [N, C, D', H', W']. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_grid_sampler_3d(AtenTensorHandle input, AtenTensorHandle grid,
                                                               int64_t interpolation_mode, int64_t padding_mode,
                                                               int32_t align_corners, AtenTensorHandle* ret0);
/* torch.histogram(self, bins, range, weight, density): hist [bins] and bin_edges [bins + 1], self's
 * dtype (float32/64); range null: self's min and max. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_histogram_bin_ct(AtenTensorHandle self, int64_t bins,
                                                                const double** range, int64_t range_len_,
                                                                AtenTensorHandle* weight, int32_t density,
                                                                AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* ---- Linear algebra through the LAPACK of scipy-openblas32 (src/ops/cpu/linalg.h): float32/64,
 * leading batch dims (broadcast between operands), any strides; results batched column-major as
 * torch's. The linalg ops without a C shim (linalg_cholesky_ex, linalg_qr, _linalg_svd, ...) are
 * served through the proxy executor (docs/aoti.md). ---- */
/* X with (L L^T) X = self (upper: U^T U); self [*, n, k], input2 [*, n, n]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cholesky_solve(AtenTensorHandle self, AtenTensorHandle input2,
                                                              int32_t upper, AtenTensorHandle* ret0);
/* (L L^T)^-1 (upper: (U^T U)^-1) from a Cholesky factor self [*, n, n]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cholesky_inverse(AtenTensorHandle self, int32_t upper,
                                                                AtenTensorHandle* ret0);
/* X with op(A) X = self, A triangular (transpose: op(A) = A^T); ret1: A broadcast to the batch. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_triangular_solve(AtenTensorHandle self, AtenTensorHandle A,
                                                                int32_t upper, int32_t transpose, int32_t unitriangular,
                                                                AtenTensorHandle* ret0, AtenTensorHandle* ret1);
/* Householder QR: reflectors and R [*, m, n], tau [*, min(m, n)]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_geqrf(AtenTensorHandle self, AtenTensorHandle* ret0,
                                                     AtenTensorHandle* ret1);
/* Q input3 (left) or input3 Q (Q^T when transpose), Q given by geqrf's self and tau input2. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_ormqr(AtenTensorHandle self, AtenTensorHandle input2,
                                                     AtenTensorHandle input3, int32_t left, int32_t transpose,
                                                     AtenTensorHandle* ret0);
/* P, L, U (row-major) of linalg.lu_factor's LU and int32 pivots; the empty [0] for what is not asked. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_lu_unpack(AtenTensorHandle LU_data, AtenTensorHandle LU_pivots,
                                                         int32_t unpack_data, int32_t unpack_pivots,
                                                         AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                         AtenTensorHandle* ret2);
/* torch.nonzero_static: int64 [size, rank] coordinates of the first `size` non-zero elements, row-major,
 * the rows past the last found filled with fill_value. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nonzero_static(AtenTensorHandle self, int64_t size, int64_t fill_value,
                                                              AtenTensorHandle* ret0);
/* torch.gcd of integer tensors, broadcast (the wider integer dtype). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_gcd(AtenTensorHandle self, AtenTensorHandle other,
                                                   AtenTensorHandle* ret0);
/* self.masked_scatter(mask, source): a contiguous copy of self (broadcast with mask) whose k-th masked
 * position (row-major) takes source's k-th element. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_masked_scatter(AtenTensorHandle self, AtenTensorHandle mask,
                                                              AtenTensorHandle source, AtenTensorHandle* ret0);
/* F.adaptive_max_pool3d over [N, C, D, H, W] or [C, D, H, W]: values and int64 flat indices. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_adaptive_max_pool3d(AtenTensorHandle self, const int64_t* output_size,
                                                                   int64_t output_size_len_, AtenTensorHandle* ret0,
                                                                   AtenTensorHandle* ret1);
/* F.adaptive_max_pool2d over [N, C, H, W] or [C, H, W]: values and int64 flat indices (channels-last
 * when self is). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_adaptive_max_pool2d(AtenTensorHandle self, const int64_t* output_size,
                                                                   int64_t output_size_len_, AtenTensorHandle* ret0,
                                                                   AtenTensorHandle* ret1);
/* aten::_trilinear (nn.Bilinear): the inputs expanded at expand1/2/3, multiplied, summed over sumdim. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__trilinear(AtenTensorHandle i1, AtenTensorHandle i2, AtenTensorHandle i3,
                                                          const int64_t* expand1, int64_t expand1_len_,
                                                          const int64_t* expand2, int64_t expand2_len_,
                                                          const int64_t* expand3, int64_t expand3_len_,
                                                          const int64_t* sumdim, int64_t sumdim_len_,
                                                          int64_t unroll_dim, AtenTensorHandle* ret0);
/* torch._int_mm: out int32 [M, N] = self int8 [M, K] @ mat2 int8 [K, N]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__int_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                           AtenTensorHandle mat2);
/* torch._scaled_mm (float8 linears): out [M, N] = (self * scale_a) @ (mat2 * scale_b) + bias, self and
 * mat2 float8 (e4m3fn, e5m2, fnuz forms) widened to float32, scales float32 broadcasting to their
 * operand (tensor-wise, per row of self, per column of mat2), summed in float32, rounded once to out
 * (float32, bfloat16, float16, or a float8 format: e4m3fn and e5m2 outs named by out_dtype multiplied
 * by 1 / scale_result first; torch's float8 rounding, e4m3fn saturating, e5m2 to infinity). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__scaled_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                              AtenTensorHandle mat2, AtenTensorHandle scale_a,
                                                              AtenTensorHandle scale_b, AtenTensorHandle* bias,
                                                              AtenTensorHandle* scale_result, int32_t* out_dtype,
                                                              int32_t use_fast_accum);
/* torch._scaled_mm, functional: a new contiguous [M, N] of out_dtype (self's dtype when null), as
 * _scaled_mm_out computes it. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__scaled_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                          AtenTensorHandle scale_a, AtenTensorHandle scale_b,
                                                          AtenTensorHandle* bias, AtenTensorHandle* scale_result,
                                                          int32_t* out_dtype, int32_t use_fast_accum,
                                                          AtenTensorHandle* ret0);
/* torch.segment_reduce (sum, prod, max, min, mean) over segments of data along axis given by lengths
 * or offsets; initial null: none. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_segment_reduce(AtenTensorHandle data, const char* reduce,
                                                              AtenTensorHandle* lengths, AtenTensorHandle* indices,
                                                              AtenTensorHandle* offsets, int64_t axis, int32_t unsafe,
                                                              double* initial, AtenTensorHandle* ret0);
/* F.adaptive_avg_pool2d / 3d where inductor's windows would be too large: [N, C, *out] or [C, *out]. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__adaptive_avg_pool2d(AtenTensorHandle self, const int64_t* output_size,
                                                                    int64_t output_size_len_, AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__adaptive_avg_pool3d(AtenTensorHandle self, const int64_t* output_size,
                                                                    int64_t output_size_len_, AtenTensorHandle* ret0);
/* F.avg_pool2d / 3d where the window holds more than 25 elements and differs from the stride: self
 * [N, C, *spatial] or [C, *spatial]; kernel_size, padding one value or one per spatial dim, stride
 * also empty (= kernel_size); divisor_override null: none. avg_pool2d keeps a 4-d self's channels-last
 * layout; float32/64 and int64, avg_pool2d also bfloat16/float16 (torch's CPU kernels). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_avg_pool2d(AtenTensorHandle self, const int64_t* kernel_size,
                                                          int64_t kernel_size_len_, const int64_t* stride,
                                                          int64_t stride_len_, const int64_t* padding,
                                                          int64_t padding_len_, int32_t ceil_mode,
                                                          int32_t count_include_pad, int64_t* divisor_override,
                                                          AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_avg_pool3d(AtenTensorHandle self, const int64_t* kernel_size,
                                                          int64_t kernel_size_len_, const int64_t* stride,
                                                          int64_t stride_len_, const int64_t* padding,
                                                          int64_t padding_len_, int32_t ceil_mode,
                                                          int32_t count_include_pad, int64_t* divisor_override,
                                                          AtenTensorHandle* ret0);
/* torch.histogramdd's counts: self [..., D], bins [D], range null or 2D values, weight null or
 * self.shape[:-1]; hist [bins...] of self's dtype (float32/64). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__histogramdd_from_bin_cts(AtenTensorHandle self, const int64_t* bins,
                                                                         int64_t bins_len_, const double** range,
                                                                         int64_t range_len_, AtenTensorHandle* weight,
                                                                         int32_t density, AtenTensorHandle* ret0);
/* Complex elementwise fallbacks (inductor generates the real ones): self + alpha * other, self ** exponent
 * (a scalar or a tensor, broadcast); the result dtype as mul_Tensor's. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_add_Tensor(AtenTensorHandle self, AtenTensorHandle other, double alpha,
                                                          AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Tensor_Scalar(AtenTensorHandle self, double exponent,
                                                                 AtenTensorHandle* ret0);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Tensor_Tensor(AtenTensorHandle self, AtenTensorHandle exponent,
                                                                 AtenTensorHandle* ret0);
/* A real scalar base to a complex exponent tensor (base 1: ones); the exponent's dtype. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_pow_Scalar(double self, AtenTensorHandle exponent,
                                                          AtenTensorHandle* ret0);
/* self.view(dtype): self's bytes as another dtype, sharing its storage (torch's size and stride rules). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_view_dtype(AtenTensorHandle self, int32_t dtype, AtenTensorHandle* ret0);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_CPU_OPS_H_ */
