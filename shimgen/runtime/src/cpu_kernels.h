// Internal helpers of the CPU ops (cpu_blas.cpp, src/ops/cpu/*.cpp). Nothing here is
// exported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "internal.h"

namespace shimgen::rt::cpu {

// A 2-D matrix inside some storage: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T> struct Matrix {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;

  Matrix transposed() const { return Matrix{data, cols, rows, col_stride, row_stride}; }
  T& at(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

// What gemm's b holds: a weight (the same values on later calls: the small kernel keeps its
// packed copy, cpu_packed_weights.h) or an activation (new values every call: packed into scratch,
// never cached, so it cannot push the weights out of the cache).
enum class BOperand { kWeight, kActivation };

// c = alpha * (a @ b) + beta * c through the BLAS (scipy-openblas32). Any strides: operands the BLAS
// cannot address (no unit stride, zero strides, leading dimension too small) are packed first, and a
// c it cannot address is computed in a scratch matrix and scattered back. beta == 0 never reads c.
// Shapes must already agree (a.rows == c.rows, a.cols == b.rows, b.cols == c.cols).
void gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha, float beta,
          BOperand b_kind = BOperand::kWeight);
void gemm(const Matrix<const double>& a, const Matrix<const double>& b, const Matrix<double>& c, double alpha,
          double beta, BOperand b_kind = BOperand::kWeight);

// addmm's bias as the small GEMM reads it: bias[i, j] at data[i * row_stride + j * col_stride],
// already broadcast to c's shape (zero strides on repeated dimensions).
struct Bias {
  const float* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// The direct kernel for tiny float32 products (cpu_small_gemm.cpp): computes c = alpha * (a @ b) +
// beta * c, or with `bias` c = alpha * (a @ b) + beta * bias (c is then never read), and returns
// true when the size is small, the CPU has AVX-512 and the layout is one it takes (c rows
// contiguous, b transposed: unit row stride, as in x @ W^T; a bias with column stride 0 or 1);
// otherwise returns false and touches nothing. A weight b's row-major copy is kept in this
// thread's packed-weight cache (cpu_packed_weights.h). Shapes must already agree, k > 0.
bool small_gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha,
                float beta, const Bias* bias = nullptr, BOperand b_kind = BOperand::kWeight);

class PackedWeightCache;
// This thread's packed-weight cache of the small GEMM; nullptr where the kernel never runs (no
// AVX-512). For the native tests.
PackedWeightCache* small_gemm_weight_cache();
// dst[kk * n + j] = w[j * ld + kk]: the [k][n] row-major copy of the n x k matrix w (rows ld apart),
// as the small GEMM packs W^T.
void pack_transposed(const float* w, int64_t k, int64_t n, int64_t ld, float* dst);

// SDPA for small float32 shapes on AVX-512 (cpu_small_attention.cpp): q, k, v [B, H, L|S, E|Ev] with
// any strides, an optional bool or float32 mask already checked to broadcast to [B, H, L, S], out
// [B, H, L, Ev] and lse [B, H, L] (float32) allocated by the caller. Writes out and lse and returns
// true when it takes the shape (8 or more query rows, at most 256 keys, head dims at most 256, an
// AVX-512 CPU); otherwise returns false and touches nothing. S > 0.
bool small_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal, double scale,
                     const Tensor& out, const Tensor& lse);

// A CPU tensor of a float dtype the ops support (float32, float64), or an InvalidArgument /
// Unsupported error naming `what`.
const Tensor& float_tensor(AtenTensorHandle handle, const char* what);
// The tensor behind an optional handle (AtenTensorHandle* that may be null or point at null).
const Tensor* optional_tensor(const AtenTensorHandle* handle, const char* what);

std::string shape_str(const std::vector<int64_t>& sizes);

}  // namespace shimgen::rt::cpu
