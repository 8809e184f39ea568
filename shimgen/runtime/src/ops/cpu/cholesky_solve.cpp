// aoti_torch_cpu_cholesky_solve: torch.cholesky_solve(B, L, upper): X with A X = B for A = L L^T
// (upper: U^T U), through LAPACK's potrs on every batch item. B [*, n, k] and L [*, n, n] broadcast
// their batch dims; the result is batched column-major, as torch's.
#include "linalg.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cholesky_solve(AtenTensorHandle self, AtenTensorHandle input2,
                                                                         int32_t upper, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& b = matrices(self, "cholesky_solve", "self");
    const Tensor& l = square_matrices(input2, "cholesky_solve", "input2");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(b.dtype == l.dtype, "cholesky_solve: self and input2 must have the same dtype");
    const int64_t n = l.sizes.back(), k = b.sizes.back();
    SHIMGEN_REQUIRE(b.sizes[b.sizes.size() - 2] == n,
                    "cholesky_solve: Incompatible matrix sizes for cholesky_solve: each A matrix is " +
                        std::to_string(n) + " by " + std::to_string(n) + " but each b matrix is " +
                        std::to_string(b.sizes[b.sizes.size() - 2]) + " by " + std::to_string(k));
    const std::vector<int64_t> batch = broadcast(batch_of(b), batch_of(l), "cholesky_solve");
    auto out = column_major(with(batch, {n, k}), b.dtype);
    dispatch(b.dtype, "cholesky_solve", [&](auto t) {
      using T = decltype(t);
      std::vector<T> x = load<T>(b, batch), a = load<T>(l, batch);
      const lint ln = dim(n, "cholesky_solve"), lk = dim(k, "cholesky_solve"), ld = std::max<lint>(1, ln);
      lint info = 0;
      if (n > 0 && k > 0)
        for (int64_t i = 0; i < count(batch); ++i)
          potrs(upper ? 'U' : 'L', ln, lk, a.data() + i * n * n, ld, x.data() + i * n * k, ld, &info);
      store(x.data(), *out);
    });
    *ret0 = wrap(std::move(out));
  });
}
