// aten::linalg_lu_solve (no C shim: served by the proxy executor): torch.linalg.lu_solve(LU, pivots,
// B, left, adjoint) by getrs on linalg.lu_factor's factors. left=False solves X A = B (A^T X^T = B^T:
// getrs with the other transpose); adjoint solves with A^T (real dtypes). Batch dims broadcast; the
// result is batched column-major when left, row-major otherwise, as torch's.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_lu_solve(AtenTensorHandle LU, AtenTensorHandle pivots, AtenTensorHandle B, bool left, bool adjoint,
                         AtenTensorHandle* out) {
  const Tensor& lu = square_matrices(LU, "linalg.lu_solve", "LU");
  const Tensor& b = matrices(B, "linalg.lu_solve", "B");
  const Tensor& piv = cpu_tensor(pivots, "pivots");
  SHIMGEN_REQUIRE(lu.dtype == b.dtype, "linalg.lu_solve: Expected LU and B to have the same dtype");
  SHIMGEN_REQUIRE(piv.dtype == kInt32, "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  const int64_t n = lu.sizes.back();
  SHIMGEN_REQUIRE(piv.sizes == with(batch_of(lu), {n}),
                  "linalg.lu_solve: Expected pivots " + shape_str(piv.sizes) + " to match LU " + shape_str(lu.sizes));
  const size_t r = b.sizes.size();
  SHIMGEN_REQUIRE(b.sizes[r - (left ? 2 : 1)] == n,
                  "linalg.lu_solve: Incompatible shapes of A and B for the equation " +
                      std::string(left ? "AX = B" : "XA = B") + " (" + shape_str(lu.sizes) + " and " +
                      shape_str(b.sizes) + ")");
  const std::vector<int64_t> batch = broadcast(batch_of(lu), batch_of(b), "linalg.lu_solve");
  const int64_t k = b.sizes[r - (left ? 1 : 2)], items = count(batch);
  const std::vector<int64_t> sizes = with(batch, {b.sizes[r - 2], b.sizes[r - 1]});
  auto result = left ? column_major(sizes, b.dtype) : row_major(sizes, b.dtype);
  dispatch(b.dtype, "linalg.lu_solve", [&](auto t) {
    using T = decltype(t);
    std::vector<T> factors = load<T>(lu, batch), x = load<T>(b, batch, !left);  // x: n x k per item
    const std::vector<lint> ipiv = load_lines<int32_t>(piv, batch);
    const lint ln = dim(n, "linalg.lu_solve"), lk = dim(k, "linalg.lu_solve"), ld = std::max<lint>(1, ln);
    const char trans = left != adjoint ? 'N' : 'T';  // X A = B is A^T X^T = B^T
    lint info = 0;
    for (int64_t i = 0; i < items && n > 0 && k > 0; ++i)
      getrs(trans, ln, lk, factors.data() + i * n * n, ld, ipiv.data() + i * n, x.data() + i * n * k, ld, &info);
    store(x.data(), *result, !left);
  });
  out[0] = wrap(std::move(result));
}

}  // namespace shimgen::rt::proxy_ops
