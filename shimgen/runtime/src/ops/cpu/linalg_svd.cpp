// aten::_linalg_svd (no C shim: served by the proxy executor): torch.linalg.svd / svdvals (and
// matrix_norm(ord=2), cond, matrix_rank through it) by LAPACK's gesdd, as torch's CPU kernel. U
// [*, m, k or m] and Vh [*, k or n, n] batched column-major (full_matrices: square), S [*, k]
// descending; compute_uv false: U and Vh are the empty [0]. A failure to converge raises torch's
// "linalg.svd: ..." message. driver must be None (torch takes it on CUDA only).
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::cpu::linalg {

template <class T> void svd(T* a, int64_t items, int64_t m, int64_t n, char jobz, T* s, T* u, T* vt, int32_t* infos) {
  const int64_t k = std::min(m, n);
  if (items == 0 || k == 0) {
    std::fill(infos, infos + items, 0);
    return;
  }
  const lint lm = dim(m, "linalg.svd"), ln = dim(n, "linalg.svd");
  const int64_t u_cols = jobz == 'A' ? m : k, vt_rows = jobz == 'A' ? n : k;
  const lint ldvt = jobz == 'N' ? 1 : static_cast<lint>(vt_rows);
  std::vector<lint> iwork(static_cast<size_t>(8 * k));
  T dummy{};
  T query{};
  lint info = 0;
  gesdd(jobz, lm, ln, a, lm, s, jobz == 'N' ? &dummy : u, jobz == 'N' ? 1 : lm, jobz == 'N' ? &dummy : vt, ldvt, &query,
        -1, iwork.data(), &info);
  std::vector<T> work(static_cast<size_t>(query_size(query)));
  for (int64_t i = 0; i < items; ++i) {
    T* ui = jobz == 'N' ? &dummy : u + i * m * u_cols;
    T* vi = jobz == 'N' ? &dummy : vt + i * vt_rows * n;
    gesdd(jobz, lm, ln, a + i * m * n, lm, s + i * k, ui, jobz == 'N' ? 1 : lm, vi, ldvt, work.data(),
          static_cast<lint>(work.size()), iwork.data(), &info);
    infos[i] = info;
  }
}

template void svd<float>(float*, int64_t, int64_t, int64_t, char, float*, float*, float*, int32_t*);
template void svd<double>(double*, int64_t, int64_t, int64_t, char, double*, double*, double*, int32_t*);

}  // namespace shimgen::rt::cpu::linalg

namespace shimgen::rt::proxy_ops {

void cpu_linalg_svd(AtenTensorHandle A, bool full_matrices, bool compute_uv, bool has_driver, AtenTensorHandle* out) {
  const Tensor& a = matrices(A, "linalg.svd", "A");
  SHIMGEN_REQUIRE(!has_driver,
                  "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                  "cuSOLVER backend.");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t m = a.sizes[a.sizes.size() - 2], n = a.sizes.back(), k = std::min(m, n), items = count(batch);
  const char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  const int64_t u_cols = full_matrices ? m : k, vt_rows = full_matrices ? n : k;
  auto u = compute_uv ? column_major(with(batch, {m, u_cols}), a.dtype) : not_computed(a.dtype);
  auto s = row_major(with(batch, {k}), a.dtype);
  auto vh = compute_uv ? column_major(with(batch, {vt_rows, n}), a.dtype) : not_computed(a.dtype);
  dispatch(a.dtype, "linalg.svd", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf = load<T>(a, batch), sbuf(static_cast<size_t>(items * k));
    std::vector<T> ubuf(compute_uv ? static_cast<size_t>(items * m * u_cols) : 0);
    std::vector<T> vbuf(compute_uv ? static_cast<size_t>(items * vt_rows * n) : 0);
    std::vector<int32_t> infos(static_cast<size_t>(items));
    svd(buf.data(), items, m, n, jobz, sbuf.data(), ubuf.data(), vbuf.data(), infos.data());
    check_infos("linalg.svd", infos.data(), items, batch.empty());
    store_lines(sbuf.data(), *s, 1);
    if (!compute_uv) return;
    store(ubuf.data(), *u);
    store(vbuf.data(), *vh);
  });
  out[0] = wrap(std::move(u));
  out[1] = wrap(std::move(s));
  out[2] = wrap(std::move(vh));
}

}  // namespace shimgen::rt::proxy_ops
