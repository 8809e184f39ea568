// aten::linalg_lu_factor_ex (no C shim: served by the proxy executor): torch.linalg.lu_factor(_ex)
// by LAPACK's getrf, as torch's CPU kernel: LU [*, m, n] batched column-major, pivots [*, min(m, n)]
// (int32, 1-based, LAPACK's) and info [*] (int32). The factorization the solvers, det, slogdet and
// inv share (lu_factor below). pivot=False is refused, as torch refuses it on the CPU.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::cpu::linalg {

template <class T> Lu lu_factor(const Tensor& a, bool transpose, std::vector<T>* buf, const char* op) {
  const std::vector<int64_t> batch = batch_of(a);
  const size_t r = a.sizes.size();
  const int64_t m = a.sizes[r - (transpose ? 1 : 2)], n = a.sizes[r - (transpose ? 2 : 1)];
  const int64_t k = std::min(m, n), items = count(batch);
  Lu out{column_major(with(batch, {m, n}), a.dtype), row_major(with(batch, {k}), kInt32), row_major(batch, kInt32)};
  *buf = load<T>(a, batch, transpose);
  auto* piv = reinterpret_cast<int32_t*>(out.pivots->data());
  auto* infos = reinterpret_cast<int32_t*>(out.info->data());
  const lint lm = dim(m, op), ln = dim(n, op);
  for (int64_t i = 0; i < items; ++i) {
    lint info = 0;
    if (k > 0) getrf(lm, ln, buf->data() + i * m * n, std::max<lint>(1, lm), piv + i * k, &info);
    infos[i] = info;
  }
  store(buf->data(), *out.lu);
  return out;
}

template Lu lu_factor<float>(const Tensor&, bool, std::vector<float>*, const char*);
template Lu lu_factor<double>(const Tensor&, bool, std::vector<double>*, const char*);

}  // namespace shimgen::rt::cpu::linalg

namespace shimgen::rt::proxy_ops {

void cpu_linalg_lu_factor_ex(AtenTensorHandle A, bool pivot, bool check_errors, AtenTensorHandle* out) {
  const Tensor& a = matrices(A, "linalg.lu_factor", "A");
  SHIMGEN_REQUIRE(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  Lu lu;
  dispatch(a.dtype, "linalg.lu_factor", [&](auto t) {
    std::vector<decltype(t)> buf;
    lu = lu_factor(a, false, &buf, "linalg.lu_factor");
  });
  if (check_errors)
    check_infos("torch.linalg.lu_factor_ex", reinterpret_cast<const int32_t*>(lu.info->data()), lu.info->numel(),
                a.sizes.size() == 2);
  out[0] = wrap(std::move(lu.lu));
  out[1] = wrap(std::move(lu.pivots));
  out[2] = wrap(std::move(lu.info));
}

}  // namespace shimgen::rt::proxy_ops
