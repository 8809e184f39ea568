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
  auto det = row_major(batch_of(a), a.dtype);
  Lu lu;
  dispatch(a.dtype, "linalg.det", [&](auto t) {
    using T = decltype(t);
    std::vector<T> values(static_cast<size_t>(det->numel()), T(1));
    lu = lu_diagonal<T>(a, "linalg.det", [&](int64_t i, T u, bool swapped) { values[i] *= swapped ? -u : u; });
    store_lines(values.data(), *det, 0);
  });
  out[0] = wrap(std::move(det));
  out[1] = wrap(std::move(lu.lu));
  out[2] = wrap(std::move(lu.pivots));
}

}  // namespace shimgen::rt::proxy_ops
