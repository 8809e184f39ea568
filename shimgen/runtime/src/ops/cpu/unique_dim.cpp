// aten::unique_dim and aten::unique_consecutive with a dim (no C shim: served by the proxy executor):
// torch.unique(x, dim=d) and torch.unique_consecutive(x, dim=d) (deduplicating rows: token n-grams,
// detection boxes, graph edges). The slices of self along dim compared element by element:
// unique_dim keeps each distinct slice once, in lexicographic order (torch sorts whatever `sorted`
// says); the consecutive form collapses each run of equal neighbouring slices, in order. values:
// self's shape with dim of the kept count, contiguous (torch's meta function, which the compiled
// model checks; its CPU kernel lays a dim other than 0 out differently); inverse int64
// [self.size(dim)]: the kept slice of each input slice; counts int64 [kept]. torch's CPU kernels
// return inverse and counts whether asked or not, and so does this. Any real dtype; NaN compares
// unequal to itself, as in torch.
#include <algorithm>
#include <numeric>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_unique_dim(AtenTensorHandle self, int64_t dim, bool consecutive, AtenTensorHandle* values,
                    AtenTensorHandle* inverse, AtenTensorHandle* counts) {
  const Tensor& in = cpu_tensor(self, "self");
  const char* op = consecutive ? "unique_consecutive" : "unique_dim";
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(rank > 0, std::string(op) + ": a 0-d input has no dim to deduplicate along");
  const int64_t d = wrap_dim(dim, rank, "dim");
  const int64_t n = in.sizes[static_cast<size_t>(d)];
  std::vector<int64_t> other;  // the dims of one slice, in order
  for (int64_t k = 0; k < rank; ++k)
    if (k != d) other.push_back(k);
  int64_t width = 1;
  for (int64_t k : other) width *= in.sizes[static_cast<size_t>(k)];
  SHIMGEN_REQUIRE(n == 0 || width > 0, std::string(op) +
                                           ": Number of zero sized dimensions is more than one, so "
                                           "unique cannot be applied");
  std::vector<int64_t> offsets(static_cast<size_t>(width));  // element offsets within a slice, row-major
  for (int64_t e = 0; e < width; ++e) {
    int64_t off = 0, rest = e;
    for (size_t j = other.size(); j-- > 0;) {
      const size_t k = static_cast<size_t>(other[j]);
      off += (rest % in.sizes[k]) * in.strides[k];
      rest /= in.sizes[k];
    }
    offsets[static_cast<size_t>(e)] = off;
  }
  const int64_t step = in.strides[static_cast<size_t>(d)];
  std::vector<int64_t> kept, inv(static_cast<size_t>(n)), cnt;
  dispatch_real(in.dtype, op, [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto at = [&](int64_t slice, int64_t e) { return value_of(src[slice * step + offsets[static_cast<size_t>(e)]]); };
    auto equal = [&](int64_t a, int64_t b) {
      for (int64_t e = 0; e < width; ++e)
        if (!(at(a, e) == at(b, e))) return false;
      return true;
    };
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t e = 0; e < width; ++e) {
        const auto x = at(a, e), y = at(b, e);
        if (x < y) return true;
        if (y < x) return false;
      }
      return false;
    };
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    if (!consecutive) std::stable_sort(order.begin(), order.end(), less);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = order[static_cast<size_t>(i)];
      if (kept.empty() || !equal(kept.back(), s)) {
        kept.push_back(s);
        cnt.push_back(0);
      }
      inv[static_cast<size_t>(s)] = static_cast<int64_t>(kept.size()) - 1;
      ++cnt.back();
    }
  });
  const int64_t m = static_cast<int64_t>(kept.size());
  std::vector<int64_t> sizes = in.sizes;
  sizes[static_cast<size_t>(d)] = m;
  auto v = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
  const int64_t out_step = v->strides[static_cast<size_t>(d)];
  std::vector<int64_t> out_offsets(static_cast<size_t>(width));  // the same walk over v's slice dims
  for (int64_t e = 0; e < width; ++e) {
    int64_t off = 0, rest = e;
    for (size_t j = other.size(); j-- > 0;) {
      const size_t k = static_cast<size_t>(other[j]);
      off += (rest % sizes[k]) * v->strides[k];
      rest /= sizes[k];
    }
    out_offsets[static_cast<size_t>(e)] = off;
  }
  const size_t item = in.itemsize();
  for (int64_t u = 0; u < m; ++u)
    for (int64_t e = 0; e < width; ++e)
      std::memcpy(
          v->data() + static_cast<size_t>(u * out_step + out_offsets[static_cast<size_t>(e)]) * item,
          in.data() + static_cast<size_t>(kept[static_cast<size_t>(u)] * step + offsets[static_cast<size_t>(e)]) * item,
          item);
  auto i = empty_tensor({n}, {1}, kInt64, kCPU, -1);
  std::copy(inv.begin(), inv.end(), reinterpret_cast<int64_t*>(i->data()));
  auto c = empty_tensor({m}, {1}, kInt64, kCPU, -1);
  std::copy(cnt.begin(), cnt.end(), reinterpret_cast<int64_t*>(c->data()));
  *values = wrap(std::move(v));
  *inverse = wrap(std::move(i));
  *counts = wrap(std::move(c));
}

}  // namespace shimgen::rt::proxy_ops
