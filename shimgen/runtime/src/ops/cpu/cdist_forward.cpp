// aoti_torch_cpu__cdist_forward: torch.cdist (retrieval, prototype/cluster assignment, k-NN heads).
// x1 [*, P, M], x2 [*, R, M] (batch dims broadcast) -> a new contiguous [*, P, R] of p-norm
// distances: p = 0 counts differing coordinates, p = inf takes the largest |difference|, else
// (sum |d|^p)^(1/p). Summed in double and rounded once; compute_mode (torch's switch to a
// matmul-based p = 2 for large inputs) changes only the rounding, so every mode is computed directly.
#include <algorithm>
#include <limits>

#include "cpu_op.h"
#include "p_norm.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void cdist(const Tensor& a, const Tensor& b, Tensor& out, double p, const std::vector<int64_t>& batch) {
  const size_t nb = batch.size();
  const int64_t P = a.sizes[nb], R = b.sizes[nb], M = a.sizes[nb + 1];
  const auto* x = reinterpret_cast<const T*>(a.data());
  const auto* y = reinterpret_cast<const T*>(b.data());
  auto* o = reinterpret_cast<T*>(out.data());
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  std::vector<int64_t> index(nb, 0);
  for (int64_t flat = 0; flat < batches; ++flat) {
    int64_t xa = 0, yb = 0, oc = 0;
    for (size_t d = 0; d < nb; ++d) {
      xa += a.sizes[d] == 1 ? 0 : index[d] * a.strides[d];
      yb += b.sizes[d] == 1 ? 0 : index[d] * b.strides[d];
      oc += index[d] * out.strides[d];
    }
    for (int64_t i = 0; i < P; ++i)
      for (int64_t j = 0; j < R; ++j) {
        const double v = p_norm_distance(M, p, [&](int64_t k) {
          return std::abs(static_cast<double>(value_of(x[xa + i * a.strides[nb] + k * a.strides[nb + 1]])) -
                          static_cast<double>(value_of(y[yb + j * b.strides[nb] + k * b.strides[nb + 1]])));
        });
        if constexpr (std::is_same_v<T, double>) o[oc + i * out.strides[nb] + j * out.strides[nb + 1]] = v;
        else o[oc + i * out.strides[nb] + j * out.strides[nb + 1]] = T(static_cast<float>(v));
      }
    for (size_t d = nb; d-- > 0;) {
      if (++index[d] < batch[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__cdist_forward(AtenTensorHandle x1, AtenTensorHandle x2,
                                                                         double p, int64_t* compute_mode,
                                                                         AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(x1, "x1");
    const Tensor& b = cpu_tensor(x2, "x2");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(a.sizes.size() >= 2 && b.sizes.size() == a.sizes.size(),
                    "cdist only supports at least 2D tensors of one rank, X1 got: " + shape_str(a.sizes) +
                        ", X2 got: " + shape_str(b.sizes));
    SHIMGEN_REQUIRE(a.sizes.back() == b.sizes.back(),
                    "X1 and X2 must have the same number of columns. X1: " + std::to_string(a.sizes.back()) +
                        " X2: " + std::to_string(b.sizes.back()));
    SHIMGEN_REQUIRE(a.dtype == b.dtype, "cdist: X1 and X2 must have one dtype");
    SHIMGEN_REQUIRE(p >= 0.0, "cdist only supports non-negative p values");
    SHIMGEN_REQUIRE(compute_mode == nullptr || (*compute_mode >= 0 && *compute_mode <= 2),
                    "possible modes: None, 1, 2, but was: " + std::to_string(*compute_mode));
    const size_t nb = a.sizes.size() - 2;
    std::vector<int64_t> batch(nb), sizes;
    for (size_t d = 0; d < nb; ++d) {
      SHIMGEN_REQUIRE(
          a.sizes[d] == b.sizes[d] || a.sizes[d] == 1 || b.sizes[d] == 1,
          "cdist: batch dims of X1 " + shape_str(a.sizes) + " and X2 " + shape_str(b.sizes) + " do not broadcast");
      batch[d] = a.sizes[d] == 1 ? b.sizes[d] : a.sizes[d];
    }
    sizes = batch;
    sizes.push_back(a.sizes[nb]);
    sizes.push_back(b.sizes[nb]);
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    if (out->numel() > 0)
      dispatch_floating(a.dtype, "cdist", [&](auto t) { cdist<decltype(t)>(a, b, *out, p, batch); });
    *ret0 = wrap(std::move(out));
  });
}
