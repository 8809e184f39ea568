// aoti_torch_cpu_histc: torch.histc (MoE expert counts). A new 1-D tensor of `bins` counts in self's
// dtype. min == max takes the data's range (widened by 1 each way when that is empty too); values
// outside [min, max] and NaN are not counted; max itself falls in the last bin. The bin of a value is
// torch's: (v - min) * bins / (max - min) computed in self's dtype (16-bit floats round every step).
#include <algorithm>
#include <limits>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void histogram(const Tensor& in, Tensor& out, int64_t bins, double lo, double hi) {
  using V = decltype(value_of(T{}));  // float for the 16-bit floats, as torch computes them
  const auto* src = reinterpret_cast<const T*>(in.data());
  std::vector<V> values;
  values.reserve(static_cast<size_t>(in.numel()));
  const std::vector<int64_t>* strides[1] = {&in.strides};
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  const int64_t last = rank == 0 ? -1 : rank - 1;
  const int64_t n = rank == 0 ? 1 : in.sizes[last];
  const int64_t step = rank == 0 ? 0 : in.strides[last];
  for_each_line(in.sizes, last, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) values.push_back(value_of(src[base[0] + i * step]));
  });
  V left = static_cast<V>(lo), right = static_cast<V>(hi);
  if (left == right && !values.empty()) {
    left = std::numeric_limits<V>::infinity();
    right = -left;
    for (V v : values) {
      if (std::isnan(v)) continue;
      left = std::min(left, v);
      right = std::max(right, v);
    }
  }
  if (!(left < right)) {  // an empty range (all values equal, or none): torch widens it
    left -= 1;
    right += 1;
  }
  // torch's histc arithmetic: in the input's type, so for 16-bit floats every step rounds to it.
  auto r = [](V v) { return value_of(static_cast<T>(v)); };
  left = r(left);
  right = r(right);
  const V scale = r(static_cast<V>(bins)), width = r(right - left);
  std::vector<V> counts(static_cast<size_t>(bins), V{0});
  for (V v : values) {
    if (!(v >= left && v <= right)) continue;  // NaN fails both
    // The bin by linear interpolation (torch's histc takes no edge search); max lands in the last bin.
    int64_t pos = static_cast<int64_t>(r(r(r(v - left) * scale) / width));
    pos = std::min(std::max(pos, int64_t{0}), bins - 1);
    counts[static_cast<size_t>(pos)] = r(counts[static_cast<size_t>(pos)] + V{1});
  }
  auto* dst = reinterpret_cast<T*>(out.data());
  for (int64_t b = 0; b < bins; ++b) dst[b] = static_cast<T>(counts[b]);
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_histc(AtenTensorHandle self, int64_t bins, double min,
                                                                double max, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(bins > 0, "bins must be > 0, got " + std::to_string(bins));
    SHIMGEN_REQUIRE(!(min > max), "max must be larger than min");
    SHIMGEN_REQUIRE(std::isfinite(min) && std::isfinite(max), "range of [min, max] must be finite");
    auto out = empty_tensor({bins}, {1}, in.dtype, kCPU, -1);
    switch (in.dtype) {
      case kFloat32: histogram<float>(in, *out, bins, min, max); break;
      case kFloat64: histogram<double>(in, *out, bins, min, max); break;
      case kBFloat16: histogram<BFloat16>(in, *out, bins, min, max); break;
      case kFloat16: histogram<Half>(in, *out, bins, min, max); break;
      default:
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "histc: dtype code " + std::to_string(in.dtype) +
                                                    " is not supported (float32, float64, bfloat16, float16)");
    }
    *ret0 = wrap(std::move(out));
  });
}
