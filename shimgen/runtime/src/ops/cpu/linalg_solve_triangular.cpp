// aten::linalg_solve_triangular (no C shim: served by the proxy executor) and the C shim
// aoti_torch_cpu_triangular_solve (torch.triangular_solve, its older form): triangular systems by the
// BLAS trsm, as torch's CPU kernels (no singularity check: a zero diagonal gives infs/NaNs).
// Batch dims broadcast; results batched column-major, as torch's.
#include "../proxy_ops.h"
#include "linalg.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace {

// X with op(A) X = B (left) or X op(A) = B, op(A) = A or A^T; A [*, n, n], B [*, n, k] or [*, k, n].
std::unique_ptr<Tensor> triangular(const Tensor& a, const Tensor& b, const std::vector<int64_t>& batch, bool upper,
                                   bool left, bool transpose, bool unit, const char* op) {
  SHIMGEN_REQUIRE(a.dtype == b.dtype, std::string(op) + ": the input tensors must have the same dtype");
  const size_t r = b.sizes.size();
  const int64_t n = a.sizes.back(), rows = b.sizes[r - 2], cols = b.sizes[r - 1];
  SHIMGEN_REQUIRE((left ? rows : cols) == n, std::string(op) + ": Incompatible shapes of A and B for the equation " +
                                                 (left ? "AX = B" : "XA = B") + " (" + shape_str(a.sizes) + " and " +
                                                 shape_str(b.sizes) + ")");
  auto out = column_major(with(batch, {rows, cols}), b.dtype);
  dispatch(b.dtype, op, [&](auto t) {
    using T = decltype(t);
    std::vector<T> x = load<T>(b, batch), m = load<T>(a, batch);
    const lint lr = dim(rows, op), lc = dim(cols, op), ln = std::max<lint>(1, dim(n, op));
    if (rows > 0 && cols > 0)
      for (int64_t i = 0; i < count(batch); ++i)
        trsm(left, upper, transpose, unit, lr, lc, m.data() + i * n * n, ln, x.data() + i * rows * cols,
             std::max<lint>(1, lr));
    store(x.data(), *out);
  });
  return out;
}

}  // namespace

namespace shimgen::rt::proxy_ops {

void cpu_linalg_solve_triangular(AtenTensorHandle self, AtenTensorHandle B, bool upper, bool left, bool unitriangular,
                                 AtenTensorHandle* out) {
  const Tensor& a = square_matrices(self, "linalg.solve_triangular", "A");
  const Tensor& b = matrices(B, "linalg.solve_triangular", "B");
  const std::vector<int64_t> batch = broadcast(batch_of(a), batch_of(b), "linalg.solve_triangular");
  out[0] = wrap(triangular(a, b, batch, upper, left, false, unitriangular, "linalg.solve_triangular"));
}

}  // namespace shimgen::rt::proxy_ops

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_triangular_solve(AtenTensorHandle self, AtenTensorHandle A,
                                                                           int32_t upper, int32_t transpose,
                                                                           int32_t unitriangular,
                                                                           AtenTensorHandle* ret0,
                                                                           AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& b = matrices(self, "triangular_solve", "self");
    const Tensor& a = square_matrices(A, "triangular_solve", "A");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const std::vector<int64_t> batch = broadcast(batch_of(b), batch_of(a), "triangular_solve");
    auto solution = triangular(a, b, batch, upper != 0, true, transpose != 0, unitriangular != 0, "triangular_solve");
    // cloned_coefficient: A broadcast to the batch, batched column-major.
    auto coefficient = column_major(with(batch, {a.sizes.back(), a.sizes.back()}), a.dtype);
    dispatch(a.dtype, "triangular_solve", [&](auto t) { store(load<decltype(t)>(a, batch).data(), *coefficient); });
    *ret0 = wrap(std::move(solution));
    *ret1 = wrap(std::move(coefficient));
  });
}
