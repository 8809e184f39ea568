// Internal helpers of the CPU ops (cpu_blas.cpp, src/ops/cpu/*.cpp). Nothing here is
// exported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "internal.h"

namespace shimgen::rt::cpu {

// A 2-D matrix inside some storage: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T>
struct Matrix {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;

  Matrix transposed() const { return Matrix{data, cols, rows, col_stride, row_stride}; }
  T& at(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

// c = alpha * (a @ b) + beta * c through the BLAS (scipy-openblas32). Any strides: operands the BLAS
// cannot address (no unit stride, zero strides, leading dimension too small) are packed first, and a
// c it cannot address is computed in a scratch matrix and scattered back. beta == 0 never reads c.
// Shapes must already agree (a.rows == c.rows, a.cols == b.rows, b.cols == c.cols).
void gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha, float beta);
void gemm(const Matrix<const double>& a, const Matrix<const double>& b, const Matrix<double>& c, double alpha,
          double beta);

// The direct kernel for tiny float32 products (cpu_small_gemm.cpp): computes c = alpha * (a @ b) +
// beta * c and returns true when the size is small, the CPU has AVX-512 and the layout is one it
// takes (c rows contiguous, b transposed: unit row stride, as in x @ W^T);
// otherwise returns false and touches nothing. Shapes must already agree, k > 0.
bool small_gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha,
                float beta);

// A CPU tensor of a float dtype the ops support (float32, float64), or an InvalidArgument /
// Unsupported error naming `what`.
const Tensor& float_tensor(AtenTensorHandle handle, const char* what);
// The tensor behind an optional handle (AtenTensorHandle* that may be null or point at null).
const Tensor* optional_tensor(const AtenTensorHandle* handle, const char* what);

std::string shape_str(const std::vector<int64_t>& sizes);

}  // namespace shimgen::rt::cpu
