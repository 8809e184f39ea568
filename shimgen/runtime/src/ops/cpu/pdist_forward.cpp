// aoti_torch_cpu__pdist_forward: torch.pdist (pairwise distances within one set: diversity terms,
// clustering). self [N, M] -> a new 1-d [N (N - 1) / 2] of p-norm distances between rows i < j, in
// row-major order of the upper triangle; p as in cdist (0 counts differences, inf the largest).
// Summed in double, rounded once.
#include <algorithm>

#include "cpu_op.h"
#include "p_norm.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__pdist_forward(AtenTensorHandle self, double p,
                                                                         AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& x = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(x.sizes.size() == 2,
                    "pdist only supports 2D tensors, got: " + std::to_string(x.sizes.size()) + "D");
    SHIMGEN_REQUIRE(p >= 0.0, "pdist only supports non-negative p values");
    const int64_t N = x.sizes[0], M = x.sizes[1];
    const int64_t pairs = N > 1 ? N * (N - 1) / 2 : 0;
    auto out = empty_tensor({pairs}, {1}, x.dtype, kCPU, -1);
    dispatch_floating(x.dtype, "pdist", [&](auto t) {
      using T = decltype(t);
      const auto* src = reinterpret_cast<const T*>(x.data());
      auto* dst = reinterpret_cast<T*>(out->data());
      int64_t k = 0;
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = i + 1; j < N; ++j, ++k) {
          const double acc = p_norm_distance(M, p, [&](int64_t c) {
            return std::abs(static_cast<double>(value_of(src[i * x.strides[0] + c * x.strides[1]])) -
                            static_cast<double>(value_of(src[j * x.strides[0] + c * x.strides[1]])));
          });
          if constexpr (std::is_same_v<T, double>) dst[k] = acc;
          else dst[k] = T(static_cast<float>(acc));
        }
    });
    *ret0 = wrap(std::move(out));
  });
}
