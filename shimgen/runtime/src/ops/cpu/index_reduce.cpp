// aoti_torch_cpu_index_reduce: Tensor.index_reduce (segment products/means/extrema by index: graph
// pooling, MoE combine). out = a new contiguous copy of self (torch's layout); for each i, the slice
// index[i] of out along dim is reduced with slice i of source: prod, mean, amax, amin (NaN
// propagates). include_self=0: indexed slices start from the reduction's identity instead of self.
// mean divides by the number of contributions (plus self's when included); integers floor-divide.
#include <algorithm>
#include <limits>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

enum class Reduce { kProd, kMean, kMax, kMin };

template <class T> void index_reduce(const Tensor& self, const Tensor& out, int64_t dim,
                                     const std::vector<int64_t>& index, const Tensor& src, Reduce how,
                                     bool include_self) {
  using V = std::conditional_t<is_floating_v<T>, double, int64_t>;
  const int64_t rank = static_cast<int64_t>(out.sizes.size());
  const int64_t n = rank == 0 ? 1 : out.sizes[dim];
  const int64_t so = rank == 0 ? 0 : out.strides[dim], ss = rank == 0 ? 0 : src.strides[dim];
  const int64_t sf = rank == 0 ? 0 : self.strides[dim];
  // Each slice of `out` is walked as the lines across dim: the same base offsets in out, src, self.
  std::vector<int64_t> line_sizes = out.sizes;
  const auto* in = reinterpret_cast<const T*>(self.data());
  const auto* from = reinterpret_cast<const T*>(src.data());
  auto* dst = reinterpret_cast<T*>(out.data());
  std::vector<V> acc(static_cast<size_t>(n));
  std::vector<int64_t> count(static_cast<size_t>(n));
  const std::vector<int64_t>* strides[3] = {&out.strides, &src.strides, &self.strides};
  // src has index.size() along dim, out has n: walk the lines of out's shape (dim fixed at 0).
  for_each_line(line_sizes, rank == 0 ? -1 : dim, strides, [&](const int64_t* base) {
    std::vector<bool> touched(static_cast<size_t>(n), false);
    for (int64_t j = 0; j < n; ++j) {
      acc[static_cast<size_t>(j)] = static_cast<V>(value_of(in[base[2] + j * sf]));
      count[static_cast<size_t>(j)] = 1;
    }
    for (size_t i = 0; i < index.size(); ++i) {
      const size_t j = static_cast<size_t>(index[i]);
      const V v = static_cast<V>(value_of(from[base[1] + static_cast<int64_t>(i) * ss]));
      if (!touched[j] && !include_self) {
        count[j] = 0;
        acc[j] = how == Reduce::kProd ? V(1) : how == Reduce::kMean ? V(0) : v;
      }
      touched[j] = true;
      V& a = acc[j];
      switch (how) {
        case Reduce::kProd: a = a * v; break;
        case Reduce::kMean: a = a + v; break;
        case Reduce::kMax:
          if constexpr (std::is_floating_point_v<V>)
            a = std::isnan(a) || std::isnan(v) ? std::numeric_limits<V>::quiet_NaN() : std::max(a, v);
          else a = std::max(a, v);
          break;
        case Reduce::kMin:
          if constexpr (std::is_floating_point_v<V>)
            a = std::isnan(a) || std::isnan(v) ? std::numeric_limits<V>::quiet_NaN() : std::min(a, v);
          else a = std::min(a, v);
          break;
      }
      ++count[j];
    }
    for (int64_t j = 0; j < n; ++j) {
      V a = acc[static_cast<size_t>(j)];
      if (how == Reduce::kMean && touched[static_cast<size_t>(j)]) {
        const int64_t c = std::max<int64_t>(count[static_cast<size_t>(j)], 1);
        if constexpr (std::is_floating_point_v<V>) a = a / static_cast<V>(c);
        else a = (a >= 0 ? a : a - (c - 1)) / c;  // floor division
      }
      if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>)
        dst[base[0] + j * so] = T(static_cast<float>(a));
      else dst[base[0] + j * so] = static_cast<T>(a);
    }
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_reduce(AtenTensorHandle self, int64_t dim,
                                                                       AtenTensorHandle index, AtenTensorHandle source,
                                                                       const char* reduce, int32_t include_self,
                                                                       AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& s = cpu_tensor(self, "self");
    const Tensor& idx = cpu_tensor(index, "index");
    const Tensor& src = cpu_tensor(source, "source");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(reduce != nullptr, "reduce is null");
    const std::string r(reduce);
    Reduce how;
    if (r == "prod") how = Reduce::kProd;
    else if (r == "mean") how = Reduce::kMean;
    else if (r == "amax") how = Reduce::kMax;
    else if (r == "amin") how = Reduce::kMin;
    else
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
           "index_reduce(): Expected reduce to be one of prod, mean, amax or amin, got " + r);
    const int64_t rank = static_cast<int64_t>(s.sizes.size());
    const int64_t d = wrap_dim(dim, rank, "dim");
    const std::vector<int64_t> positions = index_positions(s, d, idx, src, "index_reduce_()");
    auto out = empty_tensor(s.sizes, contiguous_strides_of(s.sizes), s.dtype, kCPU, -1);
    if (out->numel() > 0)
      dispatch_real(s.dtype, "index_reduce",
                    [&](auto t) { index_reduce<decltype(t)>(s, *out, d, positions, src, how, include_self != 0); });
    *ret0 = wrap(std::move(out));
  });
}
