// aten::_linalg_slogdet (no C shim: served by the proxy executor): torch.linalg.slogdet (and
// logdet). sign [*] and logabsdet [*] (A's dtype) from the LU factorization (lu_factor): the sum of
// log|U_jj| and the sign of the diagonal times the permutation's; a singular matrix gives sign 0
// and logabsdet -inf, as torch. LU and pivots are returned too.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_slogdet(AtenTensorHandle A, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(A, "linalg.slogdet", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto sign = row_major(batch, a.dtype);
  auto logabsdet = row_major(batch, a.dtype);
  Lu lu;
  dispatch(a.dtype, "linalg.slogdet", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf;
    lu = lu_factor(a, false, &buf, "linalg.slogdet");
    const auto* piv = reinterpret_cast<const int32_t*>(lu.pivots->data());
    std::vector<T> signs(static_cast<size_t>(items)), logs(static_cast<size_t>(items));
    for (int64_t i = 0; i < items; ++i) {
      T s = T(1), l = T(0);
      for (int64_t j = 0; j < n; ++j) {
        const T u = buf[(i * n + j) * n + j];
        if (piv[i * n + j] != j + 1) s = -s;
        if (u < 0) s = -s;
        l += std::log(std::abs(u));
      }
      const bool singular = std::isinf(l) && l < 0;
      signs[i] = singular ? T(0) : s;
      logs[i] = l;
    }
    store_lines(signs.data(), *sign, 0);
    store_lines(logs.data(), *logabsdet, 0);
  });
  out[0] = wrap(std::move(sign));
  out[1] = wrap(std::move(logabsdet));
  out[2] = wrap(std::move(lu.lu));
  out[3] = wrap(std::move(lu.pivots));
}

}  // namespace shimgen::rt::proxy_ops
