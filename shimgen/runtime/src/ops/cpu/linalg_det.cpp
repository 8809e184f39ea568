// aten::_linalg_det (no C shim: served by the proxy executor): torch.linalg.det. The determinant
// [*] from the LU factorization (lu_factor: getrf), the product of U's diagonal times the sign of
// the row permutation; a singular matrix gives 0. LU and pivots are returned too, as torch's.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_det(AtenTensorHandle A, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(A, "linalg.det", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto det = row_major(batch, a.dtype);
  Lu lu;
  dispatch(a.dtype, "linalg.det", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf;
    lu = lu_factor(a, false, &buf, "linalg.det");
    const auto* piv = reinterpret_cast<const int32_t*>(lu.pivots->data());
    std::vector<T> values(static_cast<size_t>(items));
    for (int64_t i = 0; i < items; ++i) {
      T d = T(1);
      for (int64_t j = 0; j < n; ++j) d *= (piv[i * n + j] != j + 1 ? T(-1) : T(1)) * buf[(i * n + j) * n + j];
      values[i] = d;
    }
    store_lines(values.data(), *det, 0);
  });
  out[0] = wrap(std::move(det));
  out[1] = wrap(std::move(lu.lu));
  out[2] = wrap(std::move(lu.pivots));
}

}  // namespace shimgen::rt::proxy_ops
