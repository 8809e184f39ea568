// aten::mm, aten::bmm and aten::addmm of complex tensors (no functional C shim on CPU: inductor
// lowers complex matmuls, einsums and F.linear (with a bias: addmm) to these fallbacks through the
// proxy executor; real ones go to mm_out / bmm_out / addmm_out or its own GEMM). torch's checks and
// messages, a new contiguous result of the operands' dtype ([n, m], or [b, n, m]).
//
// Precision: each product (and addmm's beta * self + alpha * product) goes through the BLAS's zgemm on complex<double>
// copies of the operands, the result rounded once to the dtype. For complex64 that accumulates in double where torch's
// cgemm accumulates in float (every product of two floats is exact in double, so the result is the
// exact sum to k * 2^-53 relative to sum |a||b|, then one rounding); complex128 accumulates in
// double as torch's zgemm does.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <string>
#include <vector>

#include "../proxy_ops.h"
#include "../views.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

using Z = std::complex<double>;

std::string dtype_text(int32_t dtype) {
  return dtype == kComplex64    ? "c10::complex<float>"
         : dtype == kComplex128 ? "c10::complex<double>"
                                : scalar_type_name(dtype);
}

// Matrix b of t (rows r, cols c: t's dims rank-2, rank-1, batch b along dim 0 when 3-d) into `out`,
// row-major complex<double>.
void pack(const Tensor& t, int64_t b, std::vector<Z>* out) {
  const size_t rank = t.sizes.size();
  const int64_t rows = t.sizes[rank - 2], cols = t.sizes[rank - 1];
  const int64_t sr = t.strides[rank - 2], sc = t.strides[rank - 1], base = rank == 3 ? b * t.strides[0] : 0;
  out->resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      (*out)[static_cast<size_t>(i * cols + j)] = elementwise::read_complex(t, base + i * sr + j * sc);
}

// alpha * (a @ b) (+ beta * bias[i, j] when bias is given and beta != 0: torch's BLAS rule, a zero
// beta ignores bias, NaN and inf included) for each of `batches` matrices: a new contiguous tensor
// of a's dtype, [n, m] (batches 1, a 2-d) or [batches, n, m].
std::unique_ptr<Tensor> product(const Tensor& a, const Tensor& b, int64_t batches, const Tensor* bias, double beta,
                                double alpha) {
  const size_t r = a.sizes.size();
  const int64_t n = a.sizes[r - 2], k = a.sizes[r - 1], m = b.sizes[r - 1];
  SHIMGEN_REQUIRE(n <= INT_MAX && k <= INT_MAX && m <= INT_MAX,
                  "matmul: a matrix dimension exceeds the BLAS's 32-bit index");
  std::vector<int64_t> sizes = {n, m};
  if (r == 3) sizes.insert(sizes.begin(), batches);
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
  std::vector<Z> pa, pb, pc(static_cast<size_t>(n * m));
  const Z scale(alpha, 0.0), zero(0.0, 0.0);
  for (int64_t batch = 0; batch < batches; ++batch) {
    std::fill(pc.begin(), pc.end(), zero);
    if (n > 0 && m > 0 && k > 0) {
      pack(a, batch, &pa);
      pack(b, batch, &pb);
      scipy_cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(m),
                        static_cast<int>(k), &scale, pa.data(), static_cast<int>(k), pb.data(), static_cast<int>(m),
                        &zero, pc.data(), static_cast<int>(std::max<int64_t>(m, 1)));
    }
    if (bias != nullptr && beta != 0.0)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j)
          pc[static_cast<size_t>(i * m + j)] +=
              beta * elementwise::read_complex(*bias, i * bias->strides[0] + j * bias->strides[1]);
    for (int64_t i = 0; i < n * m; ++i) elementwise::write_complex(*out, batch * n * m + i, pc[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace

AtenTensorHandle cpu_complex_mm(AtenTensorHandle self, AtenTensorHandle mat2, bool batched) {
  const Tensor& a = cpu_tensor(self, "self");
  const Tensor& b = cpu_tensor(mat2, "mat2");
  const char* op = batched ? "bmm" : "mm";
  if (batched) {
    SHIMGEN_REQUIRE(a.sizes.size() == 3, "batch1 must be a 3D tensor");
    SHIMGEN_REQUIRE(b.sizes.size() == 3, "batch2 must be a 3D tensor");
    SHIMGEN_REQUIRE(b.sizes[0] == a.sizes[0] && b.sizes[1] == a.sizes[2],
                    "Expected size for first two dimensions of batch2 tensor to be: [" + std::to_string(a.sizes[0]) +
                        ", " + std::to_string(a.sizes[2]) + "] but got: [" + std::to_string(b.sizes[0]) + ", " +
                        std::to_string(b.sizes[1]) + "].");
    SHIMGEN_REQUIRE(a.dtype == b.dtype, std::string("expected scalar type ") + scalar_type_name(a.dtype) +
                                            " but found " + scalar_type_name(b.dtype));
  } else {
    SHIMGEN_REQUIRE(a.sizes.size() == 2, "self must be a matrix");
    SHIMGEN_REQUIRE(b.sizes.size() == 2, "mat2 must be a matrix");
    SHIMGEN_REQUIRE(a.sizes[1] == b.sizes[0], "mat1 and mat2 shapes cannot be multiplied (" +
                                                  std::to_string(a.sizes[0]) + "x" + std::to_string(a.sizes[1]) +
                                                  " and " + std::to_string(b.sizes[0]) + "x" +
                                                  std::to_string(b.sizes[1]) + ")");
    SHIMGEN_REQUIRE(a.dtype == b.dtype, "expected m1 and m2 to have the same dtype, but got: " + dtype_text(a.dtype) +
                                            " != " + dtype_text(b.dtype));
  }
  if (!elementwise::is_complex(a.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": dtype " + scalar_type_name(a.dtype) +
                                                " is not served (complex64/128; real matmuls go to " + op + "_out)");
  return wrap(product(a, b, batched ? a.sizes[0] : 1, nullptr, 0.0, 1.0));
}

AtenTensorHandle cpu_complex_addmm(AtenTensorHandle self, AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                   double alpha) {
  const Tensor& c = cpu_tensor(self, "self");
  const Tensor& a = cpu_tensor(mat1, "mat1");
  const Tensor& b = cpu_tensor(mat2, "mat2");
  SHIMGEN_REQUIRE(a.sizes.size() == 2, "mat1 must be a matrix, got " + std::to_string(a.sizes.size()) + "-D tensor");
  SHIMGEN_REQUIRE(b.sizes.size() == 2, "mat2 must be a matrix, got " + std::to_string(b.sizes.size()) + "-D tensor");
  SHIMGEN_REQUIRE(a.sizes[1] == b.sizes[0], "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.sizes[0]) +
                                                "x" + std::to_string(a.sizes[1]) + " and " +
                                                std::to_string(b.sizes[0]) + "x" + std::to_string(b.sizes[1]) + ")");
  SHIMGEN_REQUIRE(c.dtype == b.dtype, std::string("self and mat2 must have the same dtype, but got ") +
                                          scalar_type_name(c.dtype) + " and " + scalar_type_name(b.dtype));
  SHIMGEN_REQUIRE(a.dtype == b.dtype, std::string("mat1 and mat2 must have the same dtype, but got ") +
                                          scalar_type_name(a.dtype) + " and " + scalar_type_name(b.dtype));
  if (!elementwise::is_complex(a.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("addmm: dtype ") + scalar_type_name(a.dtype) +
                                                " is not served (complex64/128; real ones go to addmm_out)");
  // self broadcast to [n, m] as torch's expand_size (its messages).
  const auto bias = views::expand(c, {a.sizes[0], b.sizes[1]});
  return wrap(product(a, b, 1, bias.get(), beta, alpha));
}

}  // namespace shimgen::rt::proxy_ops
