// aten::poisson (no C shim: served by the proxy executor): torch.poisson(rates) (count noise,
// simulated photon/event counts). A new tensor of self's shape and dtype (contiguous); element i a
// Poisson draw with rate self[i] from the runtime's engine (random.cpp); a rate of 0 draws 0.
#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_poisson(AtenTensorHandle self) {
  const Tensor& in = cpu_tensor(self, "self");
  auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, kCPU, -1);
  dispatch_floating(in.dtype, "poisson", [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    std::vector<double> rates;
    for_each_element(in, [&](int64_t at) { rates.push_back(static_cast<double>(value_of(src[at]))); });
    for (double r : rates) SHIMGEN_REQUIRE(r >= 0.0 && std::isfinite(r), "poisson: rates must be finite and >= 0");
    auto* dst = reinterpret_cast<T*>(out->data());
    std::lock_guard<std::mutex> lock(random_mutex());
    for (size_t i = 0; i < rates.size(); ++i) {
      const double v =
          rates[i] > 0.0 ? static_cast<double>(std::poisson_distribution<int64_t>(rates[i])(random_engine())) : 0.0;
      if constexpr (std::is_same_v<T, double>) dst[i] = v;
      else dst[i] = T(static_cast<float>(v));
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
