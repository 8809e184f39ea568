// aoti_torch_cpu_segment_reduce: torch.segment_reduce(data, reduce, lengths= | offsets=, axis=,
// initial=) (pooling ragged segments: graph and point-cloud readouts, packed sequences). Along
// `axis`, data is cut into consecutive segments given by lengths (data.shape[:axis] + [S], each >= 0,
// summing to data.shape[axis]) or offsets (data.shape[:axis] + [S + 1], non-decreasing); segment s
// reduces to one value: "sum", "prod", "max", "min" or "mean" of its elements, with `initial` folded
// in as one more operand when given (mean: (initial + sum) / length). An empty segment gives initial,
// else 0 (sum), 1 (prod), -inf (max), +inf (min), NaN (mean). NaN propagates through max and min.
// A new contiguous tensor of data's shape with axis of size S, data's dtype (float32/64, bfloat16,
// float16); sums run in double (float for the 16-bit floats). `indices` (unsupported by torch) is
// refused; `unsafe` skips nothing here (the checks are cheap).
#include <limits>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

enum class Reduce { kSum, kProd, kMax, kMin, kMean };

int64_t read_index(const Tensor& t, int64_t at) {
  return t.dtype == kInt64 ? reinterpret_cast<const int64_t*>(t.data())[at]
                           : static_cast<int64_t>(reinterpret_cast<const int32_t*>(t.data())[at]);
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_segment_reduce(
    AtenTensorHandle data, const char* reduce, AtenTensorHandle* lengths, AtenTensorHandle* indices,
    AtenTensorHandle* offsets, int64_t axis, int32_t unsafe, double* initial, AtenTensorHandle* ret0) {
  (void)unsafe;
  return guarded(__func__, [&] {
    const Tensor& x = cpu_tensor(data, "data");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(reduce != nullptr, "segment_reduce: reduce is null");
    const std::string how(reduce);
    Reduce r;
    if (how == "sum") r = Reduce::kSum;
    else if (how == "prod") r = Reduce::kProd;
    else if (how == "max") r = Reduce::kMax;
    else if (how == "min") r = Reduce::kMin;
    else if (how == "mean") r = Reduce::kMean;
    else fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "segment_reduce: reduction '" + how + "' is not supported");
    if (indices != nullptr && *indices != nullptr)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "segment_reduce: indices based reduction is not supported yet.");
    const bool by_lengths = lengths != nullptr && *lengths != nullptr;
    SHIMGEN_REQUIRE(by_lengths || (offsets != nullptr && *offsets != nullptr),
                    "segment_reduce: Either lengths or offsets must be defined");
    const Tensor& seg = cpu_tensor(by_lengths ? *lengths : *offsets, by_lengths ? "lengths" : "offsets");
    SHIMGEN_REQUIRE(seg.dtype == kInt64 || seg.dtype == kInt32,
                    "segment_reduce: lengths/offsets must be int32 or int64");
    const int64_t rank = static_cast<int64_t>(x.sizes.size());
    const int64_t ax = wrap_dim(axis, rank, "axis");
    SHIMGEN_REQUIRE(static_cast<int64_t>(seg.sizes.size()) == ax + 1,
                    "segment_reduce: Expected lengths/offsets of rank axis + 1, got " + shape_str(seg.sizes));
    for (int64_t d = 0; d < ax; ++d)
      SHIMGEN_REQUIRE(seg.sizes[static_cast<size_t>(d)] == x.sizes[static_cast<size_t>(d)],
                      "segment_reduce: lengths/offsets must match data's leading dims, got " + shape_str(seg.sizes));
    const int64_t S = seg.sizes[static_cast<size_t>(ax)] - (by_lengths ? 0 : 1);
    SHIMGEN_REQUIRE(S >= 0, "segment_reduce: offsets must hold at least one element");
    std::vector<int64_t> sizes = x.sizes;
    sizes[static_cast<size_t>(ax)] = S;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < ax; ++d) outer *= x.sizes[static_cast<size_t>(d)];
    for (int64_t d = ax + 1; d < rank; ++d) inner *= x.sizes[static_cast<size_t>(d)];
    const int64_t n = x.sizes[static_cast<size_t>(ax)];
    // Segment bounds per leading index, checked before anything is made.
    std::vector<int64_t> begin(static_cast<size_t>(outer * S)), end(static_cast<size_t>(outer * S));
    for (int64_t o = 0; o < outer; ++o) {
      int64_t seg_base = 0, rest = o;
      for (int64_t d = ax; d-- > 0;) {
        seg_base += (rest % seg.sizes[static_cast<size_t>(d)]) * seg.strides[static_cast<size_t>(d)];
        rest /= seg.sizes[static_cast<size_t>(d)];
      }
      const int64_t step = seg.strides[static_cast<size_t>(ax)];
      int64_t at = 0;
      for (int64_t s = 0; s < S; ++s) {
        int64_t b, e;
        if (by_lengths) {
          const int64_t len = read_index(seg, seg_base + s * step);
          SHIMGEN_REQUIRE(len >= 0, "segment_reduce: lengths contains negative value!");
          b = at;
          e = at + len;
          at = e;
        } else {
          b = read_index(seg, seg_base + s * step);
          e = read_index(seg, seg_base + (s + 1) * step);
          SHIMGEN_REQUIRE(b >= 0 && e >= b, "segment_reduce: offsets must be non-negative and non-decreasing");
        }
        SHIMGEN_REQUIRE(e <= n, "segment_reduce: segments reach past data.size(axis) = " + std::to_string(n));
        begin[static_cast<size_t>(o * S + s)] = b;
        end[static_cast<size_t>(o * S + s)] = e;
      }
      if (by_lengths)
        SHIMGEN_REQUIRE(at == n,
                        "segment_reduce: Expected all rows of lengths along axis to sum up to data.size(axis)");
    }
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), x.dtype, kCPU, -1);
    dispatch_floating(x.dtype, "segment_reduce", [&](auto t) {
      using T = decltype(t);
      using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
      const auto* src = reinterpret_cast<const T*>(x.data());
      auto* dst = reinterpret_cast<T*>(out->data());
      const int64_t sa = x.strides[static_cast<size_t>(ax)];
      for (int64_t o = 0; o < outer; ++o) {
        int64_t lead = 0, rest = o;
        for (int64_t d = ax; d-- > 0;) {
          lead += (rest % x.sizes[static_cast<size_t>(d)]) * x.strides[static_cast<size_t>(d)];
          rest /= x.sizes[static_cast<size_t>(d)];
        }
        for (int64_t i = 0; i < inner; ++i) {
          int64_t off = lead, ri = i;
          for (int64_t d = rank; d-- > ax + 1;) {
            off += (ri % x.sizes[static_cast<size_t>(d)]) * x.strides[static_cast<size_t>(d)];
            ri /= x.sizes[static_cast<size_t>(d)];
          }
          for (int64_t s = 0; s < S; ++s) {
            const int64_t b = begin[static_cast<size_t>(o * S + s)], e = end[static_cast<size_t>(o * S + s)];
            A acc;
            switch (r) {
              case Reduce::kProd: acc = 1; break;
              case Reduce::kMax: acc = -std::numeric_limits<A>::infinity(); break;
              case Reduce::kMin: acc = std::numeric_limits<A>::infinity(); break;
              default: acc = 0;
            }
            if (initial != nullptr) acc = static_cast<A>(*initial);
            for (int64_t k = b; k < e; ++k) {
              const A v = static_cast<A>(value_of(src[off + k * sa]));
              switch (r) {
                case Reduce::kSum:
                case Reduce::kMean: acc += v; break;
                case Reduce::kProd: acc *= v; break;
                case Reduce::kMax: acc = (std::isnan(v) || v > acc) && !std::isnan(acc) ? v : acc; break;
                case Reduce::kMin: acc = (std::isnan(v) || v < acc) && !std::isnan(acc) ? v : acc; break;
              }
            }
            if (r == Reduce::kMean) {
              if (e > b) acc /= static_cast<A>(e - b);
              else if (initial == nullptr) acc = std::numeric_limits<A>::quiet_NaN();
            }
            const int64_t at = (o * S + s) * inner + i;
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) dst[at] = static_cast<T>(acc);
            else dst[at] = T(static_cast<float>(acc));
          }
        }
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
