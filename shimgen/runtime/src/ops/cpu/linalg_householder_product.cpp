// aten::linalg_householder_product (no C shim: served by the proxy executor) and the C shims
// aoti_torch_cpu_geqrf and aoti_torch_cpu_ormqr: the Householder representation of QR. geqrf gives
// the reflectors (below the diagonal, R on and above) [*, m, n] batched column-major and tau
// [*, min(m, n)]; householder_product forms the first n columns of Q from input [*, m, n] and tau
// [*, k] (orgqr); ormqr multiplies C by Q (left) or from the right, Q^T when transpose. As torch's
// CPU kernels; batch dims must match.
#include "../proxy_ops.h"
#include "linalg.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace {

const Tensor& tau_of(AtenTensorHandle handle, const Tensor& a, int64_t most, const char* op) {
  const Tensor& tau = cpu_tensor(handle, "tau");
  SHIMGEN_REQUIRE(tau.dtype == a.dtype, std::string(op) + ": tau must have the same dtype as input");
  SHIMGEN_REQUIRE(tau.sizes.size() == a.sizes.size() - 1 && batch_of(tau, 1) == batch_of(a) && tau.sizes.back() <= most,
                  std::string(op) + ": tau " + shape_str(tau.sizes) + " does not fit input " + shape_str(a.sizes));
  return tau;
}

}  // namespace

namespace shimgen::rt::proxy_ops {

void cpu_linalg_householder_product(AtenTensorHandle input, AtenTensorHandle tau, AtenTensorHandle* out) {
  const Tensor& a = matrices(input, "torch.linalg.householder_product", "input");
  const int64_t m = a.sizes[a.sizes.size() - 2], n = a.sizes.back();
  SHIMGEN_REQUIRE(m >= n,
                  "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                  "input.shape[-1]");
  const Tensor& t = tau_of(tau, a, n, "torch.linalg.householder_product");
  const std::vector<int64_t> batch = batch_of(a);
  auto result = column_major(a.sizes, a.dtype);
  dispatch(a.dtype, "torch.linalg.householder_product", [&](auto e) {
    using T = decltype(e);
    std::vector<T> q = load<T>(a, batch), taus = load_lines<T>(t, batch);
    form_q(q.data(), count(batch), m, n, t.sizes.back(), taus.data(), t.sizes.back(),
           "torch.linalg.householder_product");
    store(q.data(), *result);
  });
  out[0] = wrap(std::move(result));
}

}  // namespace shimgen::rt::proxy_ops

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_geqrf(AtenTensorHandle self, AtenTensorHandle* ret0,
                                                                AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& a = matrices(self, "geqrf", "input");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const std::vector<int64_t> batch = batch_of(a);
    const int64_t m = a.sizes[a.sizes.size() - 2], n = a.sizes.back(), k = std::min(m, n);
    auto reflectors = column_major(a.sizes, a.dtype);
    auto tau = row_major(with(batch, {k}), a.dtype);
    dispatch(a.dtype, "geqrf", [&](auto e) {
      using T = decltype(e);
      std::vector<T> buf = load<T>(a, batch), taus(static_cast<size_t>(count(batch) * k));
      householder(buf.data(), count(batch), m, n, taus.data(), "geqrf");
      store(buf.data(), *reflectors);
      store_lines(taus.data(), *tau, 1);
    });
    *ret0 = wrap(std::move(reflectors));
    *ret1 = wrap(std::move(tau));
  });
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_ormqr(AtenTensorHandle self, AtenTensorHandle input2,
                                                                AtenTensorHandle input3, int32_t left,
                                                                int32_t transpose, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = matrices(self, "torch.ormqr", "input");
    const Tensor& c = matrices(input3, "torch.ormqr", "other");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(c.dtype == a.dtype, "torch.ormqr: other must have the same dtype as input");
    const int64_t rows = a.sizes[a.sizes.size() - 2];
    const int64_t m = c.sizes[c.sizes.size() - 2], n = c.sizes.back();
    SHIMGEN_REQUIRE(rows == (left ? m : n), "torch.ormqr: input.shape[-2] must be equal to other.shape[" +
                                                std::string(left ? "-2" : "-1") + "]");
    SHIMGEN_REQUIRE(batch_of(c) == batch_of(a), "torch.ormqr: the batch dimensions of input and other must match");
    const Tensor& t = tau_of(input2, a, std::min(rows, a.sizes.back()), "torch.ormqr");
    const std::vector<int64_t> batch = batch_of(a);
    const int64_t k = t.sizes.back(), cols = a.sizes.back(), items = count(batch);
    auto result = column_major(c.sizes, c.dtype);
    dispatch(a.dtype, "torch.ormqr", [&](auto e) {
      using T = decltype(e);
      std::vector<T> h = load<T>(a, batch), x = load<T>(c, batch), taus = load_lines<T>(t, batch);
      const lint lm = dim(m, "torch.ormqr"), ln = dim(n, "torch.ormqr"), lk = dim(k, "torch.ormqr");
      const lint lda = std::max<lint>(1, dim(rows, "torch.ormqr")), ldc = std::max<lint>(1, lm);
      const char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
      lint info = 0;
      T query{};
      if (items > 0 && m > 0 && n > 0 && k > 0) {
        ormqr(side, trans, lm, ln, lk, h.data(), lda, taus.data(), x.data(), ldc, &query, -1, &info);
        std::vector<T> work(static_cast<size_t>(query_size(query)));
        for (int64_t i = 0; i < items; ++i)
          ormqr(side, trans, lm, ln, lk, h.data() + i * rows * cols, lda, taus.data() + i * k, x.data() + i * m * n,
                ldc, work.data(), static_cast<lint>(work.size()), &info);
      }
      store(x.data(), *result);
    });
    *ret0 = wrap(std::move(result));
  });
}
