// aten::linalg_qr (no C shim: served by the proxy executor): torch.linalg.qr(A, mode) through
// LAPACK's geqrf and orgqr. mode "reduced": Q [*, m, k], R [*, k, n] (k = min(m, n)); "complete":
// Q [*, m, m], R [*, m, n]; "r": Q is the empty [0] and R [*, k, n]. Both batched column-major, as
// torch's; the signs are LAPACK's (torch's CPU kernel makes the same calls).
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::cpu::linalg {

template <class T> void householder(T* a, int64_t items, int64_t m, int64_t n, T* tau, const char* op) {
  const int64_t k = std::min(m, n);
  if (items == 0 || k == 0) return;
  const lint lm = dim(m, op), ln = dim(n, op);
  lint info = 0;
  T query{};
  geqrf(lm, ln, a, lm, tau, &query, -1, &info);
  std::vector<T> work(static_cast<size_t>(query_size(query)));
  for (int64_t i = 0; i < items; ++i)
    geqrf(lm, ln, a + i * m * n, lm, tau + i * k, work.data(), static_cast<lint>(work.size()), &info);
}

template <class T>
void form_q(T* q, int64_t items, int64_t m, int64_t cols, int64_t k, const T* tau, int64_t tau_stride, const char* op) {
  if (items == 0 || m == 0 || cols == 0) return;
  const lint lm = dim(m, op), lc = dim(cols, op), lk = dim(k, op);
  lint info = 0;
  T query{};
  orgqr(lm, lc, lk, q, lm, tau, &query, -1, &info);
  std::vector<T> work(static_cast<size_t>(query_size(query)));
  for (int64_t i = 0; i < items; ++i)
    orgqr(lm, lc, lk, q + i * m * cols, lm, tau + i * tau_stride, work.data(), static_cast<lint>(work.size()), &info);
}

template void householder<float>(float*, int64_t, int64_t, int64_t, float*, const char*);
template void householder<double>(double*, int64_t, int64_t, int64_t, double*, const char*);
template void form_q<float>(float*, int64_t, int64_t, int64_t, int64_t, const float*, int64_t, const char*);
template void form_q<double>(double*, int64_t, int64_t, int64_t, int64_t, const double*, int64_t, const char*);

}  // namespace shimgen::rt::cpu::linalg

namespace shimgen::rt::proxy_ops {

void cpu_linalg_qr(AtenTensorHandle A, const std::string& mode, AtenTensorHandle* out) {
  const Tensor& a = matrices(A, "linalg.qr", "A");
  SHIMGEN_REQUIRE(
      mode == "reduced" || mode == "complete" || mode == "r",
      "qr received unrecognized mode '" + mode + "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t m = a.sizes[a.sizes.size() - 2], n = a.sizes.back(), k = std::min(m, n), items = count(batch);
  const bool complete = mode == "complete";
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  auto q = mode == "r" ? not_computed(a.dtype) : column_major(with(batch, {m, q_cols}), a.dtype);
  auto r = column_major(with(batch, {r_rows, n}), a.dtype);
  dispatch(a.dtype, "linalg.qr", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf = load<T>(a, batch), tau(static_cast<size_t>(items * k));
    householder(buf.data(), items, m, n, tau.data(), "linalg.qr");
    std::vector<T> rbuf(static_cast<size_t>(items * r_rows * n), T(0));
    for (int64_t i = 0; i < items; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t row = 0; row <= std::min(j, r_rows - 1); ++row)
          rbuf[static_cast<size_t>((i * n + j) * r_rows + row)] = buf[static_cast<size_t>((i * n + j) * m + row)];
    store(rbuf.data(), *r);
    if (mode == "r") return;
    // Q's first k columns start as the reflectors (the rest of a complete Q: zeros), orgqr forms Q.
    std::vector<T> qbuf(static_cast<size_t>(items * m * q_cols), T(0));
    for (int64_t i = 0; i < items; ++i)
      std::copy(buf.begin() + i * m * n, buf.begin() + i * m * n + m * k, qbuf.begin() + i * m * q_cols);
    form_q(qbuf.data(), items, m, q_cols, k, tau.data(), k, "linalg.qr");
    store(qbuf.data(), *q);
  });
  out[0] = wrap(std::move(q));
  out[1] = wrap(std::move(r));
}

}  // namespace shimgen::rt::proxy_ops
