// aten::linalg_cholesky_ex (no C shim: served by the proxy executor): torch.linalg.cholesky. L (or
// U when upper, the other triangle zeroed) batched column-major through LAPACK's potrf, and info
// (int32, one per batch item: 0, or the order of the leading minor that is not positive-definite).
// check_errors raises torch's message for the first failing item.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_cholesky_ex(AtenTensorHandle self, bool upper, bool check_errors, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(self, "linalg.cholesky", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto l = column_major(a.sizes, a.dtype);
  auto info = row_major(batch, kInt32);
  auto* infos = reinterpret_cast<int32_t*>(info->data());
  dispatch(a.dtype, "linalg.cholesky", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf = load<T>(a, batch);
    const lint ln = dim(n, "linalg.cholesky");
    for (int64_t i = 0; i < items; ++i) {
      lint code = 0;
      if (n > 0) potrf(upper ? 'U' : 'L', ln, buf.data() + i * n * n, ln, &code);
      infos[i] = code;
    }
    zero_triangle(buf.data(), items, n, n, upper);
    if (check_errors) check_infos("linalg.cholesky", infos, items, batch.empty());
    store(buf.data(), *l);
  });
  out[0] = wrap(std::move(l));
  out[1] = wrap(std::move(info));
}

}  // namespace shimgen::rt::proxy_ops
