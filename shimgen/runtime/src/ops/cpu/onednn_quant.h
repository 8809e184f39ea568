// What the int8 oneDNN ops of a PT2E-quantized model compiled with freezing=True share
// (qlinear_pointwise_*.cpp, qconv*_pointwise_*.cpp): the quantization parameters they take as
// tensors, an int32-accumulating Linear and convolution of the zero-point-shifted activation with
// the symmetric int8 weight (unpacked at load: mkldnn_layout.cpp), and the epilogue torch's oneDNN
// kernel applies: scale by activation scale x per-channel weight scale, add the bias, a binary post-op
// (the other operand dequantized), a unary post-op, then requantize to the output (round half to
// even, saturate) or store float32/bfloat16.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mkldnn_fused.h"

namespace shimgen::rt::cpu::quant {

// The output dtype the op is asked for: null is X's own (uint8 or int8), as torch's op answers;
// uint8, int8, float32 or bfloat16, anything else refused.
int32_t output_dtype(const char* op, const int32_t* dtype, const Tensor& x);

// The activation: uint8 or int8 X, its scale (a one-element float tensor) and zero point (a
// one-element integer tensor).
struct Activation {
  const Tensor* x = nullptr;
  float scale = 1;
  int32_t zero_point = 0;
};
Activation activation(const char* op, AtenTensorHandle X, AtenTensorHandle scale, AtenTensorHandle zero_point);

// Per output channel: act_scale * weight_scale[c] in float32 (one scale or n). Weight zero points
// must all be 0: oneDNN's int8 weights are symmetric (the X86 quantizer makes them so).
std::vector<float> channel_scales(const char* op, const Activation& a, AtenTensorHandle weight_scales,
                                  AtenTensorHandle weight_zero_points, int64_t n);

// The epilogue's parameters beyond the channel scales.
struct Epilogue {
  const Tensor* bias = nullptr;   // [C] float32 or bfloat16, or null
  const Tensor* other = nullptr;  // the binary operand, the output's sizes, or null
  float other_scale = 1;          // other dequantized as (other - other_zero_point) * other_scale
  int64_t other_zero_point = 0;   // when it is an integer tensor; a float one is read as is
  float alpha = 1;                // result + alpha * other
  fused::Unary unary;
  double output_scale = 1;
  int64_t output_zero_point = 0;
};
// What every op's epilogue takes: the optional bias B, the unary post-op and the output's
// quantization (the binary ops then set other and its quantization).
Epilogue epilogue(AtenTensorHandle* B, const fused::Unary& unary, double output_scale, int64_t output_zero_point);

// Binary post-ops: "sum" (accumulate into other) and "add"; anything else refused.
bool parse_binary(const char* op, const char* name);  // true for "sum"

// acc (int32, contiguous over `logical`, whose last dim is the channel) through the epilogue into
// dst. perm[i] is the dst dim of logical dim i; other, when set, has dst's sizes.
void finish(const char* op, const std::vector<int32_t>& acc, const std::vector<int64_t>& logical,
            const std::vector<int64_t>& perm, const std::vector<float>& scales, const Epilogue& e, const Tensor& dst);

// (X - zp) [..., K] times W [K, N] (the packed Linear weight's shape) in int32: acc [rows, n]
// row-major, rows the product of X's leading dims; sizes is the output's, [..., N].
struct LinearS32 {
  std::vector<int32_t> acc;
  int64_t rows = 0, n = 0;
  std::vector<int64_t> sizes;
};
LinearS32 linear_s32(const char* op, const Activation& a, const Tensor& w);

// A 2-D convolution of (X - zp) [N, C, H, W] with W [O, C/groups, KH, KW] in int32, logical
// [N, OH, OW, O] row-major; out_sizes is torch's [N, O, OH, OW].
std::vector<int32_t> conv2d_s32(const char* op, const Activation& a, const Tensor& w, const int64_t* stride,
                                int64_t stride_len, const int64_t* padding, int64_t padding_len,
                                const int64_t* dilation, int64_t dilation_len, int64_t groups,
                                std::vector<int64_t>& out_sizes);

// The int32 GEMMs under linear_s32 and conv2d_s32; the internal tests compare the dispatched kernel
// with the portable loops on every kind of remainder.
// x: rows of k int16 values, x_stride apart (even, zero-padded past k, for by_rows); acc's rows acc_stride apart.
//   by rows:    acc[r][j] = sum_i x[r][i] * w[i * ld + j]
//   by columns: acc[r][j] = sum_i x[r][i] * w[j * ld + i]
// `portable` picks the plain loops; otherwise what the runtime runs on this CPU (AVX-512BW if it has it).
using Int8Gemm = void (*)(const int16_t* x, int64_t x_stride, int64_t rows, int64_t k, const int8_t* w, int64_t ld,
                          int64_t n, int32_t* acc, int64_t acc_stride);
Int8Gemm int8_gemm_by_rows(bool portable);
Int8Gemm int8_gemm_by_columns(bool portable);

// A new handle sharing t's storage (the in-place "sum" ops return their accumulator).
AtenTensorHandle alias(const Tensor& t);

}  // namespace shimgen::rt::cpu::quant
