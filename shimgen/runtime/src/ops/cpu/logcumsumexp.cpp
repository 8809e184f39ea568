// aoti_torch_cpu_logcumsumexp: log(cumsum(exp(x))) along dim without overflow (log-space scans:
// CTC-style alignment, stable attention prefixes). torch's recurrence in its CPU accumulation type:
// r = log1p(exp(min - max)) + max, -inf start; NaN propagates; equal infinities stay.
#include <algorithm>
#include <limits>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void logcumsumexp_lines(const Tensor& in, Tensor& out, int64_t dim) {
  using Acc = acc_t<T>;
  const bool scalar = in.sizes.empty();
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t in_step = scalar ? 0 : in.strides[dim], out_step = scalar ? 0 : out.strides[dim];
  const auto* src = reinterpret_cast<const T*>(in.data());
  auto* dst = reinterpret_cast<T*>(out.data());
  const std::vector<int64_t>* strides[2] = {&in.strides, &out.strides};
  for_each_line(in.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    Acc acc = -std::numeric_limits<Acc>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const Acc x = static_cast<Acc>(value_of(src[base[0] + i * in_step]));
      const Acc lo = std::isnan(acc) ? acc : std::min(x, acc);
      const Acc hi = std::isnan(acc) ? acc : std::max(x, acc);
      if (lo != hi || std::isfinite(lo)) acc = std::log1p(std::exp(lo - hi)) + hi;
      else acc = x;
      dst[base[1] + i * out_step] = static_cast<T>(acc);
    }
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_logcumsumexp(AtenTensorHandle self, int64_t dim,
                                                                       AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, kCPU, -1);
    dispatch_floating(in.dtype, "logcumsumexp", [&](auto t) { logcumsumexp_lines<decltype(t)>(in, *out, d); });
    *ret0 = wrap(std::move(out));
  });
}
