// aten::_linalg_eigh (no C shim: served by the proxy executor): torch.linalg.eigh / eigvalsh by
// LAPACK's syevd, as torch's CPU kernel: eigenvalues [*, n] ascending, eigenvectors [*, n, n]
// batched column-major (the empty [0] when compute_v is false); only the UPLO triangle is read. A
// failure to converge raises torch's "linalg.eigh: ..." message.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::cpu::linalg {

template <class T> void eigh(T* a, int64_t items, int64_t n, char uplo, bool vectors, T* w, int32_t* infos) {
  if (items == 0 || n == 0) {
    std::fill(infos, infos + items, 0);
    return;
  }
  const lint ln = dim(n, "linalg.eigh");
  const char jobz = vectors ? 'V' : 'N';
  T query{};
  lint iquery = 0, info = 0;
  syevd(jobz, uplo, ln, a, ln, w, &query, -1, &iquery, -1, &info);
  std::vector<T> work(static_cast<size_t>(query_size(query)));
  std::vector<lint> iwork(static_cast<size_t>(std::max<lint>(1, iquery)));
  for (int64_t i = 0; i < items; ++i) {
    syevd(jobz, uplo, ln, a + i * n * n, ln, w + i * n, work.data(), static_cast<lint>(work.size()), iwork.data(),
          static_cast<lint>(iwork.size()), &info);
    infos[i] = info;
  }
}

template void eigh<float>(float*, int64_t, int64_t, char, bool, float*, int32_t*);
template void eigh<double>(double*, int64_t, int64_t, char, bool, double*, int32_t*);

}  // namespace shimgen::rt::cpu::linalg

namespace shimgen::rt::proxy_ops {

void cpu_linalg_eigh(AtenTensorHandle A, const std::string& uplo, bool compute_v, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(A, "linalg.eigh", "A");
  SHIMGEN_REQUIRE(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u",
                  "Expected UPLO argument to be 'L' or 'U', but got " + uplo);
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto values = row_major(with(batch, {n}), a.dtype);
  auto vectors = compute_v ? column_major(a.sizes, a.dtype) : not_computed(a.dtype);
  dispatch(a.dtype, "linalg.eigh", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf = load<T>(a, batch), w(static_cast<size_t>(items * n));
    std::vector<int32_t> infos(static_cast<size_t>(items));
    eigh(buf.data(), items, n, static_cast<char>(std::toupper(uplo[0])), compute_v, w.data(), infos.data());
    check_infos("linalg.eigh", infos.data(), items, batch.empty());
    store_lines(w.data(), *values, 1);
    if (compute_v) store(buf.data(), *vectors);
  });
  out[0] = wrap(std::move(values));
  out[1] = wrap(std::move(vectors));
}

}  // namespace shimgen::rt::proxy_ops
