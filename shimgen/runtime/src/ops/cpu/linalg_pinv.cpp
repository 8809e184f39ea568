// aten::linalg_pinv.atol_rtol_tensor (no C shim: served by the proxy executor): torch.linalg.pinv as
// torch computes it: from the SVD (svd: gesdd; hermitian: eigh, |eigenvalues|), singular values at
// most tol = max(atol, rtol * largest) dropped, pinv = V diag(1 / s) U^T. atol/rtol: None or real
// tensors broadcast to A's batch; rtol None defaults to eps * max(m, n) (0 where atol > 0 when atol
// is given), as torch's get_atol_rtol. The result [*, n, m] is row-major (torch's matmul result).
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {
namespace {

// A tolerance tensor's values as double, one per item of `batch` (its dims broadcast to batch's).
std::vector<double> tolerances(AtenTensorHandle handle, const char* what, const std::vector<int64_t>& batch) {
  const Tensor& t = cpu_tensor(handle, what);
  SHIMGEN_REQUIRE(t.dtype == kFloat32 || t.dtype == kFloat64, std::string("torch.linalg.pinv: ") + what +
                                                                  " tensor of dtype code " + std::to_string(t.dtype) +
                                                                  " is not supported (float32 and float64 are)");
  std::vector<double> out;
  for (int64_t at : batch_offsets(t, 0, batch))
    out.push_back(t.dtype == kFloat32 ? reinterpret_cast<const float*>(t.data())[at]
                                      : reinterpret_cast<const double*>(t.data())[at]);
  return out;
}

}  // namespace

void cpu_linalg_pinv(AtenTensorHandle self, AtenTensorHandle atol, AtenTensorHandle rtol, bool hermitian,
                     AtenTensorHandle* out) {
  const Tensor& a = hermitian ? square_matrices(self, "linalg.pinv", "input") : matrices(self, "linalg.pinv", "input");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t m = a.sizes[a.sizes.size() - 2], n = a.sizes.back(), k = std::min(m, n), items = count(batch);
  const std::vector<double> atols = atol != nullptr ? tolerances(atol, "atol", batch) : std::vector<double>(items, 0.0);
  std::vector<double> rtols;
  if (rtol != nullptr) rtols = tolerances(rtol, "rtol", batch);
  auto result = row_major(with(batch, {n, m}), a.dtype);
  dispatch(a.dtype, "linalg.pinv", [&](auto t) {
    using T = decltype(t);
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon()) * static_cast<double>(std::max(m, n));
    std::vector<T> buf = load<T>(a, batch), s(static_cast<size_t>(items * k));
    std::vector<T> u(static_cast<size_t>(items * m * k)), vt(static_cast<size_t>(items * k * n));
    std::vector<int32_t> infos(static_cast<size_t>(items));
    if (hermitian) {  // A = V diag(w) V^T: U = V, s = w, V^T = V^T (the signs go with 1 / w)
      eigh(buf.data(), items, n, 'L', true, s.data(), infos.data());
      check_infos("linalg.eigh", infos.data(), items, batch.empty());
      u = buf;
      for (int64_t i = 0; i < items; ++i)
        for (int64_t l = 0; l < n; ++l)
          for (int64_t j = 0; j < n; ++j) vt[(i * n + j) * n + l] = buf[(i * n + l) * n + j];
    } else {
      svd(buf.data(), items, m, n, 'S', s.data(), u.data(), vt.data(), infos.data());
      check_infos("linalg.svd", infos.data(), items, batch.empty());
    }
    std::vector<T> x(static_cast<size_t>(items * n * m), T(0));  // column-major n x m
    for (int64_t i = 0; i < items; ++i) {
      const T* si = s.data() + i * k;
      double largest = 0;
      for (int64_t l = 0; l < k; ++l) largest = std::max(largest, std::abs(static_cast<double>(si[l])));
      const double r = rtol != nullptr ? rtols[i] : (atol != nullptr && atols[i] > 0 ? 0.0 : eps);
      const double tol = std::max(atols[i], r * largest);
      for (int64_t l = 0; l < k; ++l) {
        if (!(std::abs(static_cast<double>(si[l])) > tol)) continue;
        const T inv = T(1) / si[l];
        for (int64_t col = 0; col < m; ++col) {
          const T ul = u[(i * k + l) * m + col] * inv;  // U(col, l) / s_l
          for (int64_t row = 0; row < n; ++row) x[(i * m + col) * n + row] += vt[(i * n + row) * k + l] * ul;
        }
      }
    }
    store(x.data(), *result);
  });
  out[0] = wrap(std::move(result));
}

}  // namespace shimgen::rt::proxy_ops
