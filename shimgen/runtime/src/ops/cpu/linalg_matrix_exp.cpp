// aten::linalg_matrix_exp (no C shim: served by the proxy executor): torch.linalg.matrix_exp by
// scaling and squaring: A / 2^s with ||A / 2^s||_1 <= 1/2, its Taylor series summed in double until
// the terms stop counting, then squared s times, rounded once to A's dtype. (torch's CPU kernel uses
// optimized Taylor polynomials of degree up to 18 and a scaling of its own; both are accurate to the
// dtype's rounding: float64 agrees with eager to 2e-14 in tests/proxy_models.py linalg_shapes.)
// The result [*, n, n] is row-major, as torch's.
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace {

// c = a @ b, n x n column-major.
void matmul(const double* a, const double* b, double* c, int64_t n) {
  std::fill(c, c + n * n, 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < n; ++k) {
      const double bkj = b[j * n + k];
      for (int64_t i = 0; i < n; ++i) c[j * n + i] += a[k * n + i] * bkj;
    }
}

// exp(a) into e, n x n column-major, a overwritten.
void expm(double* a, double* e, int64_t n) {
  double norm = 0;
  for (int64_t j = 0; j < n; ++j) {
    double column = 0;
    for (int64_t i = 0; i < n; ++i) column += std::abs(a[j * n + i]);
    norm = std::max(norm, column);
  }
  if (!std::isfinite(norm)) {
    std::fill(e, e + n * n, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const int squarings = norm > 0.5 ? static_cast<int>(std::ceil(std::log2(norm / 0.5))) : 0;
  const double scale = std::ldexp(1.0, -squarings);
  for (int64_t i = 0; i < n * n; ++i) a[i] *= scale;
  std::vector<double> term(static_cast<size_t>(n * n), 0.0), next(term.size());
  std::fill(e, e + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) term[i * n + i] = e[i * n + i] = 1.0;
  for (int k = 1; k <= 30; ++k) {  // ||A||_1 <= 1/2: the k-th term is at most 2^-k / k!
    matmul(term.data(), a, next.data(), n);
    double biggest = 0;
    for (size_t i = 0; i < next.size(); ++i) {
      term[i] = next[i] / k;
      e[i] += term[i];
      biggest = std::max(biggest, std::abs(term[i]));
    }
    if (biggest <= 1e-18) break;
  }
  for (int s = 0; s < squarings; ++s) {
    matmul(e, e, next.data(), n);
    std::copy(next.begin(), next.end(), e);
  }
}

}  // namespace

namespace shimgen::rt::proxy_ops {

void cpu_linalg_matrix_exp(AtenTensorHandle self, AtenTensorHandle* out) {
  const Tensor& a = square_matrices(self, "linalg.matrix_exp", "A");
  const std::vector<int64_t> batch = batch_of(a);
  const int64_t n = a.sizes.back(), items = count(batch);
  auto result = row_major(a.sizes, a.dtype);
  dispatch(a.dtype, "linalg.matrix_exp", [&](auto t) {
    using T = decltype(t);
    const std::vector<T> in = load<T>(a, batch);
    std::vector<double> work(static_cast<size_t>(n * n)), e(work.size());
    std::vector<T> x(in.size());
    for (int64_t i = 0; i < items; ++i) {
      std::copy(in.begin() + i * n * n, in.begin() + (i + 1) * n * n, work.begin());
      expm(work.data(), e.data(), n);
      std::transform(e.begin(), e.end(), x.begin() + i * n * n, [](double v) { return static_cast<T>(v); });
    }
    store(x.data(), *result);
  });
  out[0] = wrap(std::move(result));
}

}  // namespace shimgen::rt::proxy_ops
