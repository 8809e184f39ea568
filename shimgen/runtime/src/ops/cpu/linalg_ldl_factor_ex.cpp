// aten::linalg_ldl_factor_ex (no C shim: served by the proxy executor): torch.linalg.ldl_factor(_ex)
// of a real symmetric matrix by LAPACK's sytrf (Bunch-Kaufman), as torch's CPU kernel: the lower
// triangle of A (torch's tril(A), upper = False) factored in place; LD [*, n, n] batched column-major
// (the strictly upper part zero), pivots [*, n] (int32, LAPACK's: 1-based, negative for 2 x 2 blocks)
// and info [*] (int32). hermitian only matters for complex inputs, which are refused.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace {

inline void sytrf(lint n, float* a, lint lda, lint* ipiv, float* work, lint lwork, lint* info) {
  const char uplo = 'L';
  scipy_LAPACK_ssytrf(&uplo, &n, a, &lda, ipiv, work, &lwork, info);
}
inline void sytrf(lint n, double* a, lint lda, lint* ipiv, double* work, lint lwork, lint* info) {
  const char uplo = 'L';
  scipy_LAPACK_dsytrf(&uplo, &n, a, &lda, ipiv, work, &lwork, info);
}

}  // namespace

namespace shimgen::rt::proxy_ops {

void cpu_linalg_ldl_factor_ex(AtenTensorHandle A, bool hermitian, bool check_errors, AtenTensorHandle* out) {
  (void)hermitian;
  const Tensor& a = square_matrices(A, "torch.linalg.ldl_factor_ex", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto ld = column_major(with(batch, {n, n}), a.dtype);
  auto pivots = row_major(with(batch, {n}), kInt32);
  auto info = row_major(batch, kInt32);
  auto* piv = reinterpret_cast<int32_t*>(pivots->data());
  auto* infos = reinterpret_cast<int32_t*>(info->data());
  dispatch(a.dtype, "torch.linalg.ldl_factor_ex", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf = load<T>(a, batch);
    const lint ln = dim(n, "torch.linalg.ldl_factor_ex");
    for (int64_t i = 0; i < items; ++i) {
      T* m = buf.data() + i * n * n;
      for (int64_t c = 0; c < n; ++c)
        for (int64_t r = 0; r < c; ++r) m[c * n + r] = T(0);  // tril(A): column c, rows above the diagonal
      lint code = 0;
      if (n > 0) {
        T query = T(0);
        sytrf(ln, m, std::max<lint>(1, ln), piv + i * n, &query, -1, &code);
        std::vector<T> work(static_cast<size_t>(query_size(query)));
        sytrf(ln, m, std::max<lint>(1, ln), piv + i * n, work.data(), static_cast<lint>(work.size()), &code);
      }
      infos[i] = code;
    }
    store(buf.data(), *ld);
  });
  if (check_errors) check_infos("torch.linalg.ldl_factor_ex", infos, info->numel(), a.sizes.size() == 2);
  out[0] = wrap(std::move(ld));
  out[1] = wrap(std::move(pivots));
  out[2] = wrap(std::move(info));
}

}  // namespace shimgen::rt::proxy_ops
