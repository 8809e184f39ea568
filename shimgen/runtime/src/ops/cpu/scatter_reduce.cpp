// aoti_torch_cpu_scatter_reduce_two_out: scatter_add and scatter_reduce (MoE combine, index
// accumulation). out = self, then out[index along dim] <reduce>= src for every element of index.
// reduce: sum, prod, mean, amax, amin; include_self=0 starts each written position from src alone.
// Accumulation follows index order along dim, as torch's CPU kernel; mean of integers floors. The
// index is int64 or int32, as torch takes it (inductor hands an int32 index to scatter_add when it
// computed the index in int32 itself). out and self may have any strides (a view into a larger
// buffer), out with no dim of several elements at stride 0.
#include <algorithm>
#include <cstring>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

enum class Reduce { kSum, kProd, kMean, kMax, kMin };

Reduce parse_reduce(const char* reduce) {
  SHIMGEN_REQUIRE(reduce != nullptr, "reduce is null");
  const std::string r(reduce);
  if (r == "sum") return Reduce::kSum;
  if (r == "prod") return Reduce::kProd;
  if (r == "mean") return Reduce::kMean;
  if (r == "amax") return Reduce::kMax;
  if (r == "amin") return Reduce::kMin;
  SHIMGEN_REQUIRE(false, "reduce must be sum, prod, mean, amax or amin, not '" + r + "'");
  return Reduce::kSum;
}

template <class T, class I> void scatter(const Tensor& self, const Tensor& index, const Tensor& src, Tensor& out,
                                         int64_t dim, Reduce mode, bool include_self) {
  using A = decltype(value_of(T{}));
  auto* dst = reinterpret_cast<T*>(out.data());
  const auto* self_data = reinterpret_cast<const T*>(self.data());
  const auto* idx = reinterpret_cast<const I*>(index.data());
  const auto* s = reinterpret_cast<const T*>(src.data());
  const bool scalar = index.sizes.empty();
  const int64_t rank = static_cast<int64_t>(out.sizes.size());
  const int64_t limit = rank == 0 ? 1 : out.sizes[dim];
  // Every index is checked before anything is written.
  const int64_t n = scalar ? 1 : index.sizes[dim];
  const int64_t i_step = scalar ? 0 : index.strides[dim], s_step = scalar ? 0 : src.strides[dim];
  const int64_t o_step = rank == 0 ? 0 : out.strides[dim];
  const std::vector<int64_t>* strides[3] = {&index.strides, &src.strides, &out.strides};
  for_each_line(index.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = static_cast<int64_t>(idx[base[0] + i * i_step]);
      SHIMGEN_REQUIRE(j >= 0 && j < limit, "index " + std::to_string(j) + " is out of bounds for dim " +
                                               std::to_string(dim) + " of size " + std::to_string(limit));
    }
  });
  // out = self (element by element: out and self may have different strides, or be one tensor).
  if (out.data() != self.data() || out.strides != self.strides) {
    const int64_t last = rank == 0 ? -1 : rank - 1;
    const int64_t row = rank == 0 ? 1 : out.sizes[last];
    const int64_t o_last = rank == 0 ? 0 : out.strides[last], s_last = rank == 0 ? 0 : self.strides[last];
    const std::vector<int64_t>* both[2] = {&out.strides, &self.strides};
    for_each_line(out.sizes, last, both, [&](const int64_t* base) {
      for (int64_t i = 0; i < row; ++i) dst[base[0] + i * o_last] = self_data[base[1] + i * s_last];
    });
  }
  // Per target: the running value (in A) and how many values went into it (for mean, include_self).
  struct Slot {
    int64_t offset;
    A value;
    int64_t count;
  };
  std::vector<Slot> slots;
  // Out offsets are bounded by out's span: a dense lookup table from offset to slot.
  const int64_t span = span_elements(out.sizes, out.strides);
  std::vector<int32_t> lookup(static_cast<size_t>(span), -1);
  for_each_line(index.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t j = static_cast<int64_t>(idx[base[0] + i * i_step]);
      const int64_t at = base[2] + j * o_step;
      const A v = value_of(s[base[1] + i * s_step]);
      int32_t& slot = lookup[static_cast<size_t>(at)];
      if (slot < 0) {
        slot = static_cast<int32_t>(slots.size());
        if (include_self) slots.push_back({at, value_of(dst[at]), 1});
        else {
          slots.push_back({at, v, 1});
          continue;
        }
      }
      Slot& t = slots[static_cast<size_t>(slot)];
      switch (mode) {
        case Reduce::kSum:
        case Reduce::kMean: t.value = static_cast<A>(t.value + v); break;
        case Reduce::kProd: t.value = static_cast<A>(t.value * v); break;
        case Reduce::kMax:
          if constexpr (std::is_floating_point_v<A>)
            t.value = (std::isnan(t.value) || std::isnan(v)) ? NAN : std::max(t.value, v);
          else t.value = std::max(t.value, v);
          break;
        case Reduce::kMin:
          if constexpr (std::is_floating_point_v<A>)
            t.value = (std::isnan(t.value) || std::isnan(v)) ? NAN : std::min(t.value, v);
          else t.value = std::min(t.value, v);
          break;
      }
      ++t.count;
    }
  });
  for (const Slot& t : slots) {
    A value = t.value;
    if (mode == Reduce::kMean) {
      if constexpr (std::is_floating_point_v<A>) value = value / static_cast<A>(t.count);
      else value = static_cast<A>((value >= 0 ? value : value - (t.count - 1)) / t.count);  // floor division
    }
    dst[t.offset] = static_cast<T>(value);
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_scatter_reduce_two_out(
    AtenTensorHandle out_h, AtenTensorHandle self_h, int64_t dim, AtenTensorHandle index_h, AtenTensorHandle src_h,
    const char* reduce, int32_t include_self) {
  return guarded(__func__, [&] {
    const Tensor& out = cpu_tensor(out_h, "out");
    const Tensor& self = cpu_tensor(self_h, "self");
    const Tensor& index = cpu_tensor(index_h, "index");
    const Tensor& src = cpu_tensor(src_h, "src");
    const Reduce mode = parse_reduce(reduce);
    const int64_t rank = static_cast<int64_t>(self.sizes.size());
    const int64_t d = wrap_dim(dim, rank, "dim");
    SHIMGEN_REQUIRE(index.dtype == kInt64 || index.dtype == kInt32, "index must be int32 or int64");
    SHIMGEN_REQUIRE(self.dtype == src.dtype && out.dtype == self.dtype, "self, src and out must have one dtype");
    SHIMGEN_REQUIRE(out.sizes == self.sizes, "out must have self's shape");
    SHIMGEN_REQUIRE(index.sizes.size() == self.sizes.size() && src.sizes.size() == self.sizes.size(),
                    "index, src and self must have one rank");
    for (int64_t k = 0; k < rank; ++k) {
      SHIMGEN_REQUIRE(index.sizes[k] <= src.sizes[k], "index is larger than src in dim " + std::to_string(k));
      SHIMGEN_REQUIRE(k == d || index.sizes[k] <= self.sizes[k],
                      "index is larger than self in dim " + std::to_string(k));
    }
    // out may be strided: inductor scatters straight into a slice of a torch.cat's buffer (torch_geometric's
    // sum and max readouts, (2, 32) at strides (96, 1)), and leaves this call's error code unchecked.
    // Refused only where ATen's assert_no_internal_overlap refuses.
    require_no_internal_overlap(out);
    Tensor& target = const_cast<Tensor&>(out);
    dispatch_real(self.dtype, "scatter_reduce", [&](auto type) {
      using T = decltype(type);
      if constexpr (std::is_same_v<T, bool>)
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "scatter_reduce: bool is not supported");
      else if (index.dtype == kInt64) scatter<T, int64_t>(self, index, src, target, d, mode, include_self != 0);
      else scatter<T, int32_t>(self, index, src, target, d, mode, include_self != 0);
    });
  });
}
