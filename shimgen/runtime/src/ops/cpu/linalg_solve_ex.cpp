// aten::_linalg_solve_ex (no C shim: served by the proxy executor): torch.linalg.solve(A, B) by an
// LU factorization of A (lu_factor: getrf) and getrs, as torch's CPU kernel. left=False solves
// X A = B through A^T X^T = B^T (LU is then A^T's, as torch's). B is a batch of vectors when it is
// 1-d or A's shape without the last dim (torch's rule); batch dims broadcast. result: batched
// column-major when left, row-major otherwise (torch's strides); LU [*A, n, n], pivots and info are
// A's (int32); check_errors raises torch's message.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_solve_ex(AtenTensorHandle A, AtenTensorHandle B, bool left, bool check_errors, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(A, "linalg.solve", "A");
  const Tensor& b = cpu_tensor(B, "B");
  SHIMGEN_REQUIRE(a.dtype == b.dtype, "linalg.solve: Expected A and B to have the same dtype");
  const int64_t n = a.sizes.back();
  const bool vector = b.sizes.size() == 1 || (b.sizes.size() + 1 == a.sizes.size() &&
                                              std::equal(b.sizes.begin(), b.sizes.end(), a.sizes.begin()));
  SHIMGEN_REQUIRE(!b.sizes.empty(), "linalg.solve: B must have at least 1 dimension");
  // B as a batch of matrices: a vector gets a size-1 dim (a column when left, else a row).
  Tensor bm = b;
  if (vector) {
    bm.sizes.insert(bm.sizes.end() - (left ? 0 : 1), 1);
    bm.strides.insert(bm.strides.end() - (left ? 0 : 1), 1);
  }
  const size_t r = bm.sizes.size();
  SHIMGEN_REQUIRE(bm.sizes[r - (left ? 2 : 1)] == n, "linalg.solve: Incompatible shapes of A and B for the equation " +
                                                         std::string(left ? "AX = B" : "XA = B") + " (" +
                                                         shape_str(a.sizes) + " and " + shape_str(b.sizes) + ")");
  const std::vector<int64_t> batch = broadcast(batch_of(a), batch_of(bm), "linalg.solve");
  const int64_t k = bm.sizes[r - (left ? 1 : 2)], items = count(batch);
  const std::vector<int64_t> result_sizes = vector ? with(batch, {n}) : with(batch, {bm.sizes[r - 2], bm.sizes[r - 1]});
  auto result = left ? column_major(result_sizes, a.dtype) : row_major(result_sizes, a.dtype);
  Tensor rm = *result;  // the result as a batch of matrices, as bm
  if (vector) {
    rm.sizes.insert(rm.sizes.end() - (left ? 0 : 1), 1);
    rm.strides.insert(rm.strides.end() - (left ? 0 : 1), 1);
  }
  Lu lu;
  dispatch(a.dtype, "linalg.solve", [&](auto t) {
    using T = decltype(t);
    std::vector<T> factors;
    lu = lu_factor(a, !left, &factors, "linalg.solve");
    std::vector<T> x = load<T>(bm, batch, !left);  // n x k per item
    const std::vector<int64_t> lu_at = batch_offsets(*lu.lu, 2, batch), piv_at = batch_offsets(*lu.pivots, 1, batch);
    const auto* piv = reinterpret_cast<const int32_t*>(lu.pivots->data());
    const lint ln = dim(n, "linalg.solve"), lk = dim(k, "linalg.solve"), ld = std::max<lint>(1, ln);
    lint info = 0;
    if (n > 0 && k > 0)
      for (int64_t i = 0; i < items; ++i)
        getrs('N', ln, lk, factors.data() + lu_at[i], ld, piv + piv_at[i], x.data() + i * n * k, ld, &info);
    store(x.data(), rm, !left);
  });
  if (check_errors)
    check_infos("torch.linalg.solve_ex", reinterpret_cast<const int32_t*>(lu.info->data()), lu.info->numel(),
                a.sizes.size() == 2);
  out[0] = wrap(std::move(result));
  out[1] = wrap(std::move(lu.lu));
  out[2] = wrap(std::move(lu.pivots));
  out[3] = wrap(std::move(lu.info));
}

}  // namespace shimgen::rt::proxy_ops
