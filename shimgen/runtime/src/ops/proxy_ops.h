// The ops the proxy executor (proxy_executor.cpp) serves that have no C shim in torch: their CPU
// implementations live with the other ops under ops/cpu/, and are reached only through the
// executor. Each throws ShimError (fail / SHIMGEN_REQUIRE) on a bad argument; outputs are new handles
// the caller owns, stored only once every check passed. Nothing here is exported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../internal.h"

namespace shimgen::rt::proxy_ops {

// aten::median.dim: lower median along dim and its index (NaN wins: the first NaN of a line).
void cpu_median_dim(AtenTensorHandle self, int64_t dim, bool keepdim, AtenTensorHandle* values,
                    AtenTensorHandle* indices);
// aten::multinomial: num_samples int64 draws per row of self (1-d [n] or 2-d [rows, n]) from the
// categorical distribution its non-negative weights define.
AtenTensorHandle cpu_multinomial(AtenTensorHandle self, int64_t num_samples, bool replacement);
// aten::bincount: counts (int64) or summed weights (double, or weights' float dtype) of each value
// of a 1-d non-negative integer tensor, length max(max + 1, minlength).
AtenTensorHandle cpu_bincount(AtenTensorHandle self, AtenTensorHandle weights, int64_t minlength);
// prims::normal: a new contiguous tensor of `shape` of normal(mean, std) draws.
AtenTensorHandle cpu_normal(const std::vector<int64_t>& shape, double mean, double std, int32_t dtype);

// aten::_unique2: the sorted distinct values of self (flattened), and when asked the inverse
// (self's shape: the position of each element's value) and the counts; an output not asked for is
// an empty int64 [0], as torch returns it.
void cpu_unique2(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                 AtenTensorHandle* inverse, AtenTensorHandle* counts);

// aten::unique_consecutive (dim None): self flattened with each run of equal values collapsed to
// one (CTC-style decoding); inverse (self's shape) and counts when asked, else empty int64 [0].
void cpu_unique_consecutive(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                            AtenTensorHandle* inverse, AtenTensorHandle* counts);
// aten::poisson: a new tensor of self's shape and dtype, element i a Poisson draw with rate self[i].
AtenTensorHandle cpu_poisson(AtenTensorHandle self);
// aten::_standard_gamma: Gamma(alpha = self[i], 1) draws (float32, float64), at least the dtype's
// smallest normal, as torch's CPU kernel.
AtenTensorHandle cpu_standard_gamma(AtenTensorHandle self);
// aten::binomial: successes in count[i] trials of probability prob[i] (float32, float64).
AtenTensorHandle cpu_binomial(AtenTensorHandle count, AtenTensorHandle prob);
// aten::_sample_dirichlet: Dirichlet(alpha) draws along the last dimension (float32, float64).
AtenTensorHandle cpu_sample_dirichlet(AtenTensorHandle self);

// aten::complex: real + i imag, broadcast (float32 -> complex64, float64 -> complex128).
AtenTensorHandle cpu_complex(AtenTensorHandle real, AtenTensorHandle imag);
// aten::_fft_c2r: the inverse of a onesided real FFT (torch.fft.irfft/irfftn): c2c inverse over
// dim[:-1], then a Hermitian complex-to-real transform of the last dim to last_dim_size points.
AtenTensorHandle cpu_fft_c2r(AtenTensorHandle self, const std::vector<int64_t>& dim, int64_t normalization,
                             int64_t last_dim_size);

// aten::index_add: a new contiguous copy of self with slice i of source times alpha added to slice
// index[i] along dim, in index order (bfloat16 reaches the proxy; any real dtype is served).
AtenTensorHandle cpu_index_add(AtenTensorHandle self, int64_t dim, AtenTensorHandle index, AtenTensorHandle source,
                               double alpha);

// aten::embedding_renorm: a new copy (self's layout) of the 2-D float weight self with each row indices
// names (once) scaled to max_norm when its norm_type-norm exceeds it (F.embedding's max_norm).
// RenormRule::kCudaKernel: the norm as torch's CUDA kernel computes it (embedding_renorm.cpp says how).
enum class RenormRule { kCpu, kCudaKernel };
AtenTensorHandle cpu_embedding_renorm(AtenTensorHandle self, AtenTensorHandle indices, double max_norm,
                                      double norm_type, RenormRule rule = RenormRule::kCpu);

// aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa: antialiased resize of self [N, C, H, W] to
// output_size (PIL-style separable filters); scale_h / scale_w <= 0: not given.
AtenTensorHandle cpu_upsample_aa(AtenTensorHandle self, const std::vector<int64_t>& output_size, bool align_corners,
                                 double scale_h, double scale_w, bool bicubic);

// aten::_histogramdd_bin_edges: the bins[d] + 1 edges of each of self's D coordinates (self [..., D];
// range: 2D floats, or null for each coordinate's min and max), new 1-d tensors.
std::vector<AtenTensorHandle> cpu_histogramdd_bin_edges(AtenTensorHandle self, const std::vector<int64_t>& bins,
                                                        const std::vector<double>* range);

// aten::sub.Tensor ('-': self - alpha * other) and aten::div.Tensor ('/') with a complex operand,
// broadcast; aten::exp ('e'), aten::_conj_physical ('c'), log ('l'), sqrt ('s'), sin ('S'), cos ('C'),
// tanh ('t'), sigmoid ('g'), reciprocal ('r'), rsqrt ('R'), neg ('n'), expm1 ('m') and log1p ('p') of a
// complex tensor.
AtenTensorHandle cpu_complex_binary(AtenTensorHandle self, AtenTensorHandle other, char op, double alpha);
AtenTensorHandle cpu_complex_unary(AtenTensorHandle self, char op);

// aten::hamming_window ('h', alpha and beta; hann: 0.5, 0.5), blackman_window ('b'), bartlett_window
// ('t') and kaiser_window ('k', beta), periodic or symmetric; aten::fft_fftfreq / fft_rfftfreq
// (real_input). New contiguous 1-d CPU tensors of dtype (-1: float32).
AtenTensorHandle cpu_window(char kind, int64_t window_length, bool periodic, double alpha, double beta, int32_t dtype);
AtenTensorHandle cpu_fftfreq(int64_t n, double d, bool real_input, int32_t dtype);

// aten::unique_dim (consecutive false: distinct slices along dim, sorted) and aten::unique_consecutive
// with a dim (true: runs of equal neighbouring slices collapsed): values, inverse and counts.
void cpu_unique_dim(AtenTensorHandle self, int64_t dim, bool consecutive, AtenTensorHandle* values,
                    AtenTensorHandle* inverse, AtenTensorHandle* counts);
// aten::nanmedian.dim: the lower median of each line's non-NaN values and its index.
void cpu_nanmedian_dim(AtenTensorHandle self, int64_t dim, bool keepdim, AtenTensorHandle* values,
                       AtenTensorHandle* indices);

// aten::conv_tbc (fairseq's ConvTBC): self [T, B, C], weight [K, C, O], bias [O]; a new contiguous
// [T + 2 pad - K + 1, B, O], the 1-d convolution over time plus bias.
AtenTensorHandle cpu_conv_tbc(AtenTensorHandle self, AtenTensorHandle weight, AtenTensorHandle bias, int64_t pad);

// ---- complex layers (FNO spectral convolutions, complex linears): the ops inductor falls back to
// for complex tensors only; real ones it generates or sends to the GEMM shims. ----
// aten::mm (batched false: self [n, k] @ mat2 [k, m]) and aten::bmm ([b, n, k] @ [b, k, m]) of
// complex64/128: zgemm on complex<double> copies, rounded once; a new contiguous result.
AtenTensorHandle cpu_complex_mm(AtenTensorHandle self, AtenTensorHandle mat2, bool batched);
// aten::constant_pad_nd of a complex tensor: pad's (before, after) pairs from the last dim back,
// negative ones narrowing; value + 0i in the new cells; torch's layout (channels-last kept).
AtenTensorHandle cpu_constant_pad_nd(AtenTensorHandle self, const std::vector<int64_t>& pad, double value);
// aten::sum / sum.dim_IntList (mean false) and aten::mean / mean.dim (true) of a complex tensor:
// dims null or empty for all; dtype -1 for self's; a new contiguous result.
AtenTensorHandle cpu_complex_sum(AtenTensorHandle self, const std::vector<int64_t>* dims, bool keepdim, int32_t dtype,
                                 bool mean);
// aten::addmm of complex64/128: beta * self (broadcast to [n, m]; ignored when beta is 0) + alpha *
// (mat1 @ mat2), accumulated as cpu_complex_mm; a new contiguous result.
AtenTensorHandle cpu_complex_addmm(AtenTensorHandle self, AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                   double alpha);
// aten::full of a complex dtype: a new contiguous tensor of value + 0i (a real dtype: Unsupported).
AtenTensorHandle cpu_complex_full(const std::vector<int64_t>& size, double value, int32_t dtype);
// aten::copy into a complex self: clone_preserve_strides(self) holding src broadcast and converted.
AtenTensorHandle cpu_complex_copy(AtenTensorHandle self, AtenTensorHandle src);
// aten::slice_scatter into a complex self: clone_preserve_strides(self) with its slice (start / end
// null for None) replaced by src.
AtenTensorHandle cpu_complex_slice_scatter(AtenTensorHandle self, AtenTensorHandle src, int64_t dim,
                                           const int64_t* start, const int64_t* end, int64_t step);
// Memory formats as torch.export serializes them (torch/_export/serde/schema.py MemoryFormat).
constexpr int64_t kContiguousFormat = 1, kChannelsLast = 2, kChannelsLast3d = 3, kPreserveFormat = 4;
// The strides a clone of a tensor of `sizes` / `strides` takes in memory_format (torch's clone and
// empty_like rules; channels_last needs 4 dims, channels_last_3d 5).
std::vector<int64_t> clone_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                   int64_t memory_format);
// ATen's clone_preserve_strides of a CPU tensor (what aten::copy and the *_scatter ops return): a
// copy of self's whole storage seen with self's sizes, strides and storage offset; a self that
// overlaps itself (a stride 0 over more than one element) gets a plain clone instead.
std::unique_ptr<Tensor> clone_preserve_strides(const Tensor& self);
// aten::clone: a new tensor on self's device (any device, any dtype) with clone_strides' layout.
AtenTensorHandle clone(AtenTensorHandle self, int64_t memory_format);

// The elementwise special functions (special_functions.cpp: digamma, polygamma, special_ndtri,
// special_i0e, igamma, special_zeta, the Bessel functions and orthogonal polynomials, ...): the
// ops torch's inductor has no Triton code for and leaves to aten on CUDA. One table; find_special
// gives a target's entry (null: not one of them), special_targets every target.
struct SpecialFunction;
const SpecialFunction* find_special(const std::string& target);
std::vector<std::string> special_targets();
const char* special_argument(const SpecialFunction& fn, int which);  // the schema's name of operand 0 / 1
bool special_is_binary(const SpecialFunction& fn);
// fn over a (and b, broadcast, when binary; polygamma: order n) on the host: a new tensor of the
// operands' float dtype (float32/64, bfloat16, float16; binary: one dtype), torch's elementwise layout.
AtenTensorHandle cpu_special(const SpecialFunction& fn, AtenTensorHandle a, AtenTensorHandle b, int64_t n);

// ---- linalg (ops/cpu/linalg.h: LAPACK of scipy-openblas32; float32/float64, leading batch dims,
// any strides; outputs in torch's layouts). Each fills out[0 .. its output count) with new handles,
// all or none; a nonzero LAPACK info raises torch's message where torch's kernel checks it. ----
// aten::_linalg_check_errors: fails with torch's message for the first nonzero info.
void cpu_linalg_check_errors(AtenTensorHandle info, const std::string& api_name, bool is_matrix);
// aten::_is_all_true: a 0-d bool tensor, whether every element of the bool tensor self is true.
AtenTensorHandle cpu_is_all_true(AtenTensorHandle self);
// aten::linalg_cholesky_ex: L (or U), info.
void cpu_linalg_cholesky_ex(AtenTensorHandle self, bool upper, bool check_errors, AtenTensorHandle* out);
// aten::linalg_qr: Q, R (mode "reduced", "complete" or "r").
void cpu_linalg_qr(AtenTensorHandle A, const std::string& mode, AtenTensorHandle* out);
// aten::_linalg_svd: U, S, Vh (has_driver: a driver was named, which the CPU refuses).
void cpu_linalg_svd(AtenTensorHandle A, bool full_matrices, bool compute_uv, bool has_driver, AtenTensorHandle* out);
// aten::_linalg_eigh: eigenvalues, eigenvectors.
void cpu_linalg_eigh(AtenTensorHandle A, const std::string& uplo, bool compute_v, AtenTensorHandle* out);
// aten::_linalg_solve_ex: result, LU, pivots, info.
void cpu_linalg_solve_ex(AtenTensorHandle A, AtenTensorHandle B, bool left, bool check_errors, AtenTensorHandle* out);
// aten::_linalg_det: result, LU, pivots.
void cpu_linalg_det(AtenTensorHandle A, AtenTensorHandle* out);
// aten::_linalg_slogdet: sign, logabsdet, LU, pivots.
void cpu_linalg_slogdet(AtenTensorHandle A, AtenTensorHandle* out);
// aten::linalg_inv_ex: inverse, info.
void cpu_linalg_inv_ex(AtenTensorHandle A, bool check_errors, AtenTensorHandle* out);
// aten::linalg_pinv.atol_rtol_tensor: the pseudo-inverse (atol, rtol: null for None).
void cpu_linalg_pinv(AtenTensorHandle self, AtenTensorHandle atol, AtenTensorHandle rtol, bool hermitian,
                     AtenTensorHandle* out);
// aten::linalg_lu_factor_ex: LU, pivots, info.
void cpu_linalg_lu_factor_ex(AtenTensorHandle A, bool pivot, bool check_errors, AtenTensorHandle* out);
// aten::linalg_ldl_factor_ex: LD, pivots, info (sytrf on tril(A)).
void cpu_linalg_ldl_factor_ex(AtenTensorHandle A, bool hermitian, bool check_errors, AtenTensorHandle* out);
// aten::linalg_lu: P, L, U.
void cpu_linalg_lu(AtenTensorHandle A, bool pivot, AtenTensorHandle* out);
// aten::linalg_lu_solve: X from linalg_lu_factor's LU and pivots.
void cpu_linalg_lu_solve(AtenTensorHandle LU, AtenTensorHandle pivots, AtenTensorHandle B, bool left, bool adjoint,
                         AtenTensorHandle* out);
// aten::linalg_solve_triangular: X.
void cpu_linalg_solve_triangular(AtenTensorHandle self, AtenTensorHandle B, bool upper, bool left, bool unitriangular,
                                 AtenTensorHandle* out);
// aten::linalg_eig (vectors: eigenvalues, eigenvectors) and aten::_linalg_eigvals (eigenvalues), complex.
void cpu_linalg_eig(AtenTensorHandle self, bool vectors, AtenTensorHandle* out);
// aten::linalg_householder_product: Q's first n columns from reflectors and tau.
void cpu_linalg_householder_product(AtenTensorHandle input, AtenTensorHandle tau, AtenTensorHandle* out);
// aten::linalg_matrix_exp: exp(A).
void cpu_linalg_matrix_exp(AtenTensorHandle self, AtenTensorHandle* out);

// ---- torchvision's operators (custom ops: torchvision::<name>; float32 and float64, as its CPU kernels).
// A float16 or bfloat16 call reaches them widened to float32 (float_cast.cpp) with `rounding` that
// 16-bit dtype: they then compute as torchvision's CUDA kernels compute in half (roi_common.h's
// Rounded), and the proxy executor rounds their float32 results back. ----
// float_cast.cpp: a new contiguous host copy of t in dtype (float32, float16 or bfloat16; the same set
// for t), rounded to nearest even.
AtenTensorHandle cpu_float_cast(AtenTensorHandle t, int32_t dtype);
// roi_align.cpp: roi_align (a new [K, C, PH, PW]); ps_roi_align (output [K, C / (PH PW), PH, PW] and its
// int32 channel map).
AtenTensorHandle cpu_roi_align(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                               int64_t pooled_w, int64_t sampling_ratio, bool aligned, int32_t rounding = -1);
void cpu_ps_roi_align(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                      int64_t pooled_w, int64_t sampling_ratio, AtenTensorHandle* output,
                      AtenTensorHandle* channel_mapping, int32_t rounding = -1);
// roi_pool.cpp: roi_pool (maxima and their int32 argmax); ps_roi_pool (means and the channel map).
void cpu_roi_pool(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                  int64_t pooled_w, AtenTensorHandle* output, AtenTensorHandle* argmax, int32_t rounding = -1);
void cpu_ps_roi_pool(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                     int64_t pooled_w, AtenTensorHandle* output, AtenTensorHandle* channel_mapping,
                     int32_t rounding = -1);
// nms.cpp: the kept box indices (int64), highest score first.
AtenTensorHandle cpu_nms(AtenTensorHandle dets, AtenTensorHandle scores, double iou_threshold, int32_t rounding = -1);
// deform_conv2d.cpp: the deformable convolution (a new [B, OC, OH, OW]).
struct DeformConvParams {
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1, groups = 1,
          offset_groups = 1;
  bool use_mask = false;
  int32_t rounding = -1;
};
AtenTensorHandle cpu_deform_conv2d(AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle offset,
                                   AtenTensorHandle mask, AtenTensorHandle bias, const DeformConvParams& params);

}  // namespace shimgen::rt::proxy_ops
