// aten::linalg_inv_ex (no C shim: served by the proxy executor): torch.linalg.inv(_ex) as torch's
// CPU kernel computes it, solving A X = I by an LU factorization (lu_factor: getrf) and getrs.
// inverse [*, n, n] batched column-major, info [*] (int32, getrf's: a singular matrix gives the
// index of its zero pivot and an inverse of infs/NaNs); check_errors raises torch's message.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_inv_ex(AtenTensorHandle A, bool check_errors, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(A, "linalg.inv", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto inverse = column_major(a.sizes, a.dtype);
  Lu lu;
  dispatch(a.dtype, "linalg.inv", [&](auto t) {
    using T = decltype(t);
    std::vector<T> factors;
    lu = lu_factor(a, false, &factors, "linalg.inv");
    std::vector<T> x(static_cast<size_t>(items * n * n), T(0));
    const auto* piv = reinterpret_cast<const int32_t*>(lu.pivots->data());
    const lint ln = dim(n, "linalg.inv");
    lint info = 0;
    for (int64_t i = 0; i < items && n > 0; ++i) {
      for (int64_t j = 0; j < n; ++j) x[(i * n + j) * n + j] = T(1);
      getrs('N', ln, ln, factors.data() + i * n * n, ln, piv + i * n, x.data() + i * n * n, ln, &info);
    }
    store(x.data(), *inverse);
  });
  if (check_errors)
    check_infos("linalg.inv_ex", reinterpret_cast<const int32_t*>(lu.info->data()), lu.info->numel(), batch.empty());
  out[0] = wrap(std::move(inverse));
  out[1] = wrap(std::move(lu.info));
}

}  // namespace shimgen::rt::proxy_ops
