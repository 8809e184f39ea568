// CPU GEMM ops (mm, addmm, bmm) for AOTInductor models, through the BLAS of the PyPI package
// scipy-openblas32 (symbols scipy_cblas_*: they cannot bind to, or be bound by, the BLAS that
// libtorch or numpy bring into the same process). See shimgen_runtime/shim_cpu_ops.h.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_kernels.h"
#include "ops/cpu/cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cpu {
namespace {

// How the BLAS sees one operand: a pointer, whether it is stored transposed relative to the call's
// order, and its leading dimension. `packed` owns a dense copy when the original strides do not fit.
template <typename T> struct Operand {
  const T* data = nullptr;
  bool transposed = false;
  int64_t ld = 0;
  std::vector<T> packed;
};

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

// Row-major: unit column stride and a row stride of at least max(1, cols). Size-1 dimensions have
// no meaningful stride, so they never disqualify a matrix.
template <typename T> bool row_major(const Matrix<T>& m, int64_t* ld) {
  if (m.cols != 1 && m.col_stride != 1) return false;
  const int64_t need = std::max<int64_t>(1, m.cols);
  const int64_t have = m.rows == 1 ? need : m.row_stride;
  if (have < need || !fits_int(have)) return false;
  *ld = have;
  return true;
}

template <typename T> Operand<T> operand(const Matrix<const T>& m) {
  Operand<T> op;
  int64_t ld = 0;
  if (row_major(m, &ld)) {
    op.data = m.data;
    op.ld = ld;
  } else if (row_major(m.transposed(), &ld)) {
    op.data = m.data;
    op.transposed = true;
    op.ld = ld;
  } else {
    op.packed.resize(static_cast<size_t>(m.rows * m.cols));
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j) op.packed[static_cast<size_t>(i * m.cols + j)] = m.at(i, j);
    op.data = op.packed.data();
    op.ld = std::max<int64_t>(1, m.cols);
  }
  return op;
}

void blas(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                    lda, b, ldb, beta, c, ldc);
}

void blas(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
          double beta, double* c, int ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                    lda, b, ldb, beta, c, ldc);
}

template <typename T> void gemm_impl(const Matrix<const T>& a, const Matrix<const T>& b, const Matrix<T>& c, T alpha,
                                     T beta, BOperand b_kind) {
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  SHIMGEN_REQUIRE(fits_int(m) && fits_int(n) && fits_int(k), "matrix dimension exceeds the BLAS's 32-bit index");
  if (k == 0) {  // nothing to multiply: c = beta * c (beta 0 writes zeros, never reads c)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c.at(i, j) = beta == T(0) ? T(0) : beta * c.at(i, j);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // Tiny products skip the BLAS's fixed cost; a column-major c is the same product transposed.
    // (Transposed, a^T takes b's place: an activation.)
    if (small_gemm(a, b, c, alpha, beta, nullptr, b_kind)) return;
    if (small_gemm(b.transposed(), a.transposed(), c.transposed(), alpha, beta, nullptr, BOperand::kActivation)) return;
  }
  int64_t ldc = 0;
  bool c_transposed = false;
  if (!row_major(Matrix<const T>{c.data, m, n, c.row_stride, c.col_stride}, &ldc)) {
    if (row_major(Matrix<const T>{c.data, n, m, c.col_stride, c.row_stride}, &ldc)) {
      c_transposed = true;  // c is column-major: compute c^T = b^T @ a^T instead
    } else {
      // No BLAS layout: compute into a dense scratch and scatter.
      std::vector<T> scratch(static_cast<size_t>(m * n));
      Matrix<T> dense{scratch.data(), m, n, n, 1};
      if (beta != T(0))
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) dense.at(i, j) = c.at(i, j);
      gemm_impl<T>(a, b, dense, alpha, beta, b_kind);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c.at(i, j) = dense.at(i, j);
      return;
    }
  }
  if (!c_transposed) {
    Operand<T> oa = operand(a), ob = operand(b);
    blas(oa.transposed, ob.transposed, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, oa.data,
         static_cast<int>(oa.ld), ob.data, static_cast<int>(ob.ld), beta, c.data, static_cast<int>(ldc));
  } else {
    Operand<T> ob = operand(b.transposed()), oa = operand(a.transposed());
    blas(ob.transposed, oa.transposed, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), alpha, ob.data,
         static_cast<int>(ob.ld), oa.data, static_cast<int>(oa.ld), beta, c.data, static_cast<int>(ldc));
  }
}

template <typename T> Matrix<T> matrix_of(const Tensor& t, int64_t first_dim, int64_t batch) {
  T* base = reinterpret_cast<T*>(t.data());
  const size_t d = static_cast<size_t>(first_dim);
  const int64_t offset = first_dim == 0 ? 0 : batch * t.strides[0];
  return Matrix<T>{base + offset, t.sizes[d], t.sizes[d + 1], t.strides[d], t.strides[d + 1]};
}

// out[b] = beta * bias + alpha * (a[b] @ m[b]); bias (addmm only) broadcasts to out.
template <typename T> void run_matmul(const Tensor& out, const Tensor& a, const Tensor& m, const Tensor* bias,
                                      double beta, double alpha, int64_t rank) {
  const int64_t first = rank - 2;
  const int64_t batches = rank == 3 ? out.sizes[0] : 1;
  T gemm_beta = T(0);
  if constexpr (std::is_same_v<T, float>) {
    // addmm on the small kernel: the bias goes into its epilogue (c = alpha * a @ m + beta * bias),
    // so out is written once and never read.
    if (bias != nullptr && beta != 0.0 && rank == 2) {
      const size_t bd = bias->sizes.size();
      const int64_t rs = bd == 2 && bias->sizes[0] != 1 ? bias->strides[0] : 0;
      const int64_t cs = bd >= 1 && bias->sizes[bd - 1] != 1 ? bias->strides[bd - 1] : 0;
      const Bias fused{reinterpret_cast<const float*>(bias->data()), rs, cs}, fused_t{fused.data, cs, rs};
      const Matrix<float> o = matrix_of<float>(out, 0, 0), ma = matrix_of<float>(a, 0, 0);
      const Matrix<float> mm = matrix_of<float>(m, 0, 0);
      const Matrix<const float> ca{ma.data, ma.rows, ma.cols, ma.row_stride, ma.col_stride};
      const Matrix<const float> cm{mm.data, mm.rows, mm.cols, mm.row_stride, mm.col_stride};
      if (ca.cols > 0 && o.rows > 0 && o.cols > 0 &&
          (small_gemm(ca, cm, o, static_cast<float>(alpha), static_cast<float>(beta), &fused) ||
           small_gemm(cm.transposed(), ca.transposed(), o.transposed(), static_cast<float>(alpha),
                      static_cast<float>(beta), &fused_t, BOperand::kActivation)))
        return;
    }
  }
  if (bias != nullptr && beta != 0.0) {
    // Broadcast the bias into out (right-aligned, size-1 dims repeat), then let the BLAS add.
    const Matrix<T> o = matrix_of<T>(out, 0, 0);
    const T* bp = reinterpret_cast<const T*>(bias->data());
    const size_t bd = bias->sizes.size();
    const int64_t rs = bd == 2 && bias->sizes[0] != 1 ? bias->strides[0] : 0;
    const int64_t cs = bd >= 1 && bias->sizes[bd - 1] != 1 ? bias->strides[bd - 1] : 0;
    for (int64_t i = 0; i < o.rows; ++i) {
      if (o.col_stride == 1 && cs == 1) {  // the usual Linear: one contiguous bias row per out row
        std::memcpy(&o.at(i, 0), bp + i * rs, static_cast<size_t>(o.cols) * sizeof(T));
        continue;
      }
      for (int64_t j = 0; j < o.cols; ++j) o.at(i, j) = bp[i * rs + j * cs];
    }
    gemm_beta = static_cast<T>(beta);
  }
  // mm/addmm's second operand is usually a Linear's weight; bmm's usually an activation.
  const BOperand b_kind = rank == 2 ? BOperand::kWeight : BOperand::kActivation;
  for (int64_t b = 0; b < batches; ++b) {
    const Matrix<T> ma = matrix_of<T>(a, first, b), mm = matrix_of<T>(m, first, b);
    gemm(Matrix<const T>{ma.data, ma.rows, ma.cols, ma.row_stride, ma.col_stride},
         Matrix<const T>{mm.data, mm.rows, mm.cols, mm.row_stride, mm.col_stride}, matrix_of<T>(out, first, b),
         static_cast<T>(alpha), gemm_beta, b_kind);
  }
}

// The integer GEMM (torch's CPU mm/addmm/bmm of int8..int64 and uint8): sums of products in the
// dtype's own wrapping arithmetic (computed modulo 2^64, then truncated: the same bits), alpha and beta
// taken as integers, as torch's kernel takes its Scalars. No BLAS has one; models use it for index
// arithmetic on small matrices.
template <typename T> void run_integer_matmul(const Tensor& out, const Tensor& a, const Tensor& m, const Tensor* bias,
                                              double beta, double alpha, int64_t rank) {
  const int64_t first = rank - 2;
  const int64_t batches = rank == 3 ? out.sizes[0] : 1;
  const auto ia = static_cast<uint64_t>(static_cast<int64_t>(alpha));
  const auto ib = static_cast<uint64_t>(static_cast<int64_t>(beta));
  const T* bp = bias != nullptr ? reinterpret_cast<const T*>(bias->data()) : nullptr;
  const size_t bd = bias != nullptr ? bias->sizes.size() : 0;
  const int64_t rs = bd == 2 && bias->sizes[0] != 1 ? bias->strides[0] : 0;
  const int64_t cs = bd >= 1 && bias->sizes[bd - 1] != 1 ? bias->strides[bd - 1] : 0;
  for (int64_t b = 0; b < batches; ++b) {
    const Matrix<T> o = matrix_of<T>(out, first, b), x = matrix_of<T>(a, first, b), y = matrix_of<T>(m, first, b);
    for (int64_t i = 0; i < o.rows; ++i)
      for (int64_t j = 0; j < o.cols; ++j) {
        uint64_t sum = 0;
        for (int64_t k = 0; k < x.cols; ++k)
          sum += static_cast<uint64_t>(static_cast<int64_t>(x.at(i, k))) *
                 static_cast<uint64_t>(static_cast<int64_t>(y.at(k, j)));
        uint64_t r = ia * sum;
        if (bp != nullptr && beta != 0.0) r += ib * static_cast<uint64_t>(static_cast<int64_t>(bp[i * rs + j * cs]));
        o.at(i, j) = static_cast<T>(r);
      }
  }
}

bool is_integer_dtype(int32_t dtype) {
  return dtype == kUInt8 || dtype == kInt8 || dtype == kInt16 || dtype == kInt32 || dtype == kInt64;
}

// The regions [lo, hi) of bytes two tensors address (0, 0 when empty).
std::pair<const char*, const char*> extent(const Tensor& t) {
  const int64_t span = span_elements(t.sizes, t.strides);
  if (span == 0) return {nullptr, nullptr};
  return {t.data(), t.data() + span * static_cast<int64_t>(t.itemsize())};
}

bool overlap(const Tensor& x, const Tensor& y) {
  auto [xl, xh] = extent(x);
  auto [yl, yh] = extent(y);
  return xl != nullptr && yl != nullptr && xl < yh && yl < xh;
}

AOTITorchError matmul(const char* op, AtenTensorHandle out_h, AtenTensorHandle self_h, AtenTensorHandle mat2_h,
                      AtenTensorHandle bias_h, double beta, double alpha, int64_t rank) {
  return guarded(op, [&] {
    // float32 and float64 through the BLAS; bfloat16 and float16 as torch's CPU GEMM computes them:
    // float32 operands, float32 accumulation, one rounding of the result; integers in their own
    // wrapping arithmetic.
    auto operand = [](AtenTensorHandle h, const char* what) -> const Tensor& {
      const Tensor* t = unwrap(h, what);
      const bool narrow = is_half_dtype(t->dtype) || is_integer_dtype(t->dtype);
      return narrow && t->storage->device_type == kCPU ? *t : float_tensor(h, what);
    };
    const Tensor& out = operand(out_h, "out");
    const Tensor& a = operand(self_h, bias_h ? "mat1" : "self");
    const Tensor& m = operand(mat2_h, "mat2");
    const Tensor* bias = bias_h ? &operand(bias_h, "self") : nullptr;
    SHIMGEN_REQUIRE(static_cast<int64_t>(out.sizes.size()) == rank && static_cast<int64_t>(a.sizes.size()) == rank &&
                        static_cast<int64_t>(m.sizes.size()) == rank,
                    "expects " + std::to_string(rank) + "-d out and operands, got out " + shape_str(out.sizes) + ", " +
                        shape_str(a.sizes) + " and " + shape_str(m.sizes));
    SHIMGEN_REQUIRE(a.dtype == out.dtype && m.dtype == out.dtype && (!bias || bias->dtype == out.dtype),
                    "operands and out must have one dtype");
    const size_t off = static_cast<size_t>(rank - 2);
    SHIMGEN_REQUIRE(a.sizes[off + 1] == m.sizes[off] && out.sizes[off] == a.sizes[off] &&
                        out.sizes[off + 1] == m.sizes[off + 1] &&
                        (rank != 3 || (a.sizes[0] == out.sizes[0] && m.sizes[0] == out.sizes[0])),
                    "shapes do not multiply into out: " + shape_str(a.sizes) + " @ " + shape_str(m.sizes) + " -> " +
                        shape_str(out.sizes));
    if (bias != nullptr) {
      const auto& bs = bias->sizes;
      const bool ok =
          bs.empty() || (bs.size() == 1 && (bs[0] == 1 || bs[0] == out.sizes[1])) ||
          (bs.size() == 2 && (bs[0] == 1 || bs[0] == out.sizes[0]) && (bs[1] == 1 || bs[1] == out.sizes[1]));
      SHIMGEN_REQUIRE(ok, "self " + shape_str(bs) + " does not broadcast to out " + shape_str(out.sizes));
    }
    // As in PyTorch: out may not share memory with an input (the result would depend on order), and
    // an out with a zero stride (several elements in one place) cannot be written. An out with no
    // elements overlaps nothing, whatever its strides (inductor gives an empty buffer of a
    // data-dependent size the strides that size makes, e.g. {24, 32, 0} strides {0, 0, 1}).
    const bool empty = std::find(out.sizes.begin(), out.sizes.end(), int64_t{0}) != out.sizes.end();
    for (size_t d = 0; d < out.sizes.size() && !empty; ++d)
      SHIMGEN_REQUIRE(out.sizes[d] <= 1 || out.strides[d] != 0,
                      "out has internally overlapping elements (stride 0 at dim " + std::to_string(d) + ")");
    SHIMGEN_REQUIRE(!overlap(out, a) && !overlap(out, m) && (!bias || !overlap(out, *bias)), "out overlaps an input");
    // The operand checks above let through float32/64, bfloat16/float16 and the integer types.
    dispatch_real(out.dtype, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        run_matmul<T>(out, a, m, bias, beta, alpha, rank);
      } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        run_integer_matmul<T>(out, a, m, bias, beta, alpha, rank);
      } else {  // bfloat16, float16 (bool never gets past float_tensor)
        const auto wide_a = widened(a), wide_m = widened(m);
        const auto wide_bias = bias != nullptr ? widened(*bias) : nullptr;
        const auto wide_out = empty_tensor(out.sizes, contiguous_strides_of(out.sizes), kFloat32, kCPU, -1);
        run_matmul<float>(*wide_out, *wide_a, *wide_m, wide_bias.get(), beta, alpha, rank);
        store_narrowed(*wide_out, out);
      }
    });
  });
}

}  // namespace

void gemm(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, float alpha, float beta,
          BOperand b_kind) {
  gemm_impl<float>(a, b, c, alpha, beta, b_kind);
}

void gemm(const Matrix<const double>& a, const Matrix<const double>& b, const Matrix<double>& c, double alpha,
          double beta, BOperand b_kind) {
  gemm_impl<double>(a, b, c, alpha, beta, b_kind);
}

const Tensor& float_tensor(AtenTensorHandle handle, const char* what) {
  const Tensor* t = unwrap(handle, what);
  SHIMGEN_REQUIRE(t->storage->device_type == kCPU, std::string(what) + " is not a CPU tensor");
  if (t->dtype != kFloat32 && t->dtype != kFloat64) {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(what) + " has dtype code " + std::to_string(t->dtype) +
                                                "; only float32 (6) and float64 (7) are supported");
  }
  return *t;
}

const Tensor* optional_tensor(const AtenTensorHandle* handle, const char* what) {
  if (handle == nullptr || *handle == nullptr) return nullptr;
  return unwrap(*handle, what);
}

std::string shape_str(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

}  // namespace shimgen::rt::cpu

extern "C" {

AOTITorchError aoti_torch_cpu_mm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2) {
  return shimgen::rt::cpu::matmul("aoti_torch_cpu_mm_out", out, self, mat2, nullptr, 0.0, 1.0, 2);
}

AOTITorchError aoti_torch_cpu_addmm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat1,
                                        AtenTensorHandle mat2, double beta, double alpha) {
  return shimgen::rt::cpu::matmul("aoti_torch_cpu_addmm_out", out, mat1, mat2, self, beta, alpha, 2);
}

AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2) {
  return shimgen::rt::cpu::matmul("aoti_torch_cpu_bmm_out", out, self, mat2, nullptr, 0.0, 1.0, 3);
}

}  // extern "C"
