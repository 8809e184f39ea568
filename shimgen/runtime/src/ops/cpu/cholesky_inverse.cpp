// aoti_torch_cpu_cholesky_inverse: torch.cholesky_inverse(L, upper): (L L^T)^-1 (upper: (U^T U)^-1)
// from the Cholesky factor by LAPACK's potri, the other triangle mirrored. Batched column-major, as
// torch's; a zero on the factor's diagonal fails with torch's "cholesky_inverse: ..." message.
#include "linalg.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cholesky_inverse(AtenTensorHandle self, int32_t upper,
                                                                           AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& l = square_matrices(self, "cholesky_inverse", "input");
    require_out(ret0, "ret0");
    const std::vector<int64_t> batch = batch_of(l);
    const int64_t n = l.sizes.back(), items = count(batch);
    auto out = column_major(l.sizes, l.dtype);
    dispatch(l.dtype, "cholesky_inverse", [&](auto t) {
      using T = decltype(t);
      std::vector<T> buf = load<T>(l, batch);
      std::vector<int32_t> infos(static_cast<size_t>(items));
      const lint ln = dim(n, "cholesky_inverse");
      for (int64_t i = 0; i < items && n > 0; ++i) {
        lint info = 0;
        potri(upper ? 'U' : 'L', ln, buf.data() + i * n * n, ln, &info);
        infos[i] = info;
        T* a = buf.data() + i * n * n;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t r = j + 1; r < n; ++r) {
            if (upper) a[j * n + r] = a[r * n + j];  // lower (r, j) from upper (j, r)
            else a[r * n + j] = a[j * n + r];        // upper (j, r) from lower (r, j)
          }
      }
      check_infos("cholesky_inverse", infos.data(), items, batch.empty());
      store(buf.data(), *out);
    });
    *ret0 = wrap(std::move(out));
  });
}
