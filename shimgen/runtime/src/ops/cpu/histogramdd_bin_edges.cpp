// aten::_histogramdd_bin_edges (no C shim: served by the proxy executor): torch.histogramdd's bin
// edges, one new 1-d tensor of bins[d] + 1 values of self's dtype per coordinate d (histogramdd.h's
// rules, the ones aoti_torch_cpu__histogramdd_from_bin_cts counts against).
#include "../proxy_ops.h"
#include "histogramdd.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

std::vector<AtenTensorHandle> cpu_histogramdd_bin_edges(AtenTensorHandle self, const std::vector<int64_t>& bins,
                                                        const std::vector<double>* range) {
  const Tensor& in = cpu_tensor(self, "self");
  const char* op = "torch.histogramdd";
  const HistogramddShape s = histogramdd_shape(in, bins.data(), static_cast<int64_t>(bins.size()), op);
  const double* r = range != nullptr ? range->data() : nullptr;
  const int64_t r_len = range != nullptr ? static_cast<int64_t>(range->size()) : 0;
  std::vector<std::unique_ptr<Tensor>> made;
  auto fill = [&](auto t) {
    using T = decltype(t);
    for (const std::vector<T>& e : histogramdd_edges<T>(in, s, bins.data(), r, r_len, op)) {
      const int64_t n = static_cast<int64_t>(e.size());
      made.push_back(empty_tensor({n}, {1}, in.dtype, kCPU, -1));
      std::copy(e.begin(), e.end(), reinterpret_cast<T*>(made.back()->data()));
    }
  };
  if (in.dtype == kFloat32) fill(float{});
  else fill(double{});
  std::vector<AtenTensorHandle> out;
  for (auto& t : made) out.push_back(wrap(std::move(t)));
  return out;
}

}  // namespace shimgen::rt::proxy_ops
