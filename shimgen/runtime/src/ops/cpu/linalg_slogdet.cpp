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
  auto sign = row_major(batch_of(a), a.dtype);
  auto logabsdet = row_major(batch_of(a), a.dtype);
  Lu lu;
  dispatch(a.dtype, "linalg.slogdet", [&](auto t) {
    using T = decltype(t);
    std::vector<T> signs(static_cast<size_t>(sign->numel()), T(1)), logs(signs.size(), T(0));
    lu = lu_diagonal<T>(a, "linalg.slogdet", [&](int64_t i, T u, bool swapped) {
      if (swapped != (u < 0)) signs[i] = -signs[i];
      logs[i] += std::log(std::abs(u));
    });
    for (size_t i = 0; i < signs.size(); ++i)
      if (std::isinf(logs[i]) && logs[i] < 0) signs[i] = T(0);  // singular
    store_lines(signs.data(), *sign, 0);
    store_lines(logs.data(), *logabsdet, 0);
  });
  out[0] = wrap(std::move(sign));
  out[1] = wrap(std::move(logabsdet));
  out[2] = wrap(std::move(lu.lu));
  out[3] = wrap(std::move(lu.pivots));
}

}  // namespace shimgen::rt::proxy_ops
