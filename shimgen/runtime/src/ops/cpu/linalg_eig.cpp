// aten::linalg_eig and aten::_linalg_eigvals (no C shim: served by the proxy executor):
// torch.linalg.eig / eigvals of real matrices by LAPACK's geev, as torch's CPU kernel. Eigenvalues
// [*, n] complex (complex64 for float32, complex128 for float64), in LAPACK's order; eigenvectors
// [*, n, n] complex batched column-major, LAPACK's (unit 2-norm, largest component real): a complex
// pair's vectors are v_j +- i v_{j+1}. A failure to converge raises torch's "linalg.eig: ..." message.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_eig(AtenTensorHandle self, bool vectors, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(self, "linalg.eig", "input");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  const int32_t complex = a.dtype == kFloat64 ? kComplex128 : kComplex64;
  auto values = row_major(with(batch, {n}), complex);
  auto vecs = vectors ? column_major(a.sizes, complex) : nullptr;
  dispatch(a.dtype, "linalg.eig", [&](auto t) {
    using T = decltype(t);
    using C = std::complex<T>;
    std::vector<T> buf = load<T>(a, batch), wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    std::vector<T> vr(vectors ? static_cast<size_t>(n * n) : 1);
    std::vector<C> w(static_cast<size_t>(items * n)), v(vectors ? static_cast<size_t>(items * n * n) : 0);
    std::vector<int32_t> infos(static_cast<size_t>(items));
    const lint ln = dim(n, "linalg.eig");
    const char jobvr = vectors ? 'V' : 'N';
    T dummy{}, query{};
    lint info = 0;
    if (items > 0 && n > 0)
      geev('N', jobvr, ln, buf.data(), ln, wr.data(), wi.data(), &dummy, 1, vr.data(), ln, &query, -1, &info);
    std::vector<T> work(static_cast<size_t>(query_size(query)));
    for (int64_t i = 0; i < items && n > 0; ++i) {
      geev('N', jobvr, ln, buf.data() + i * n * n, ln, wr.data(), wi.data(), &dummy, 1, vr.data(), ln, work.data(),
           static_cast<lint>(work.size()), &info);
      infos[i] = info;
      for (int64_t j = 0; j < n; ++j) w[i * n + j] = C(wr[j], wi[j]);
      if (!vectors) continue;
      C* vi = v.data() + i * n * n;
      for (int64_t j = 0; j < n; ++j) {
        if (wi[j] != T(0) && j + 1 < n) {  // a conjugate pair: columns j (real part) and j + 1 (imaginary)
          for (int64_t row = 0; row < n; ++row) {
            vi[j * n + row] = C(vr[j * n + row], vr[(j + 1) * n + row]);
            vi[(j + 1) * n + row] = std::conj(vi[j * n + row]);
          }
          ++j;
        } else {
          for (int64_t row = 0; row < n; ++row) vi[j * n + row] = C(vr[j * n + row], T(0));
        }
      }
    }
    check_infos("linalg.eig", infos.data(), items, batch.empty());
    store_lines(w.data(), *values, 1);
    if (vectors) store(v.data(), *vecs);
  });
  out[0] = wrap(std::move(values));
  if (vectors) out[1] = wrap(std::move(vecs));
}

}  // namespace shimgen::rt::proxy_ops
