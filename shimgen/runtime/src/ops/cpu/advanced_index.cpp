// AdvancedIndex (advanced_index.h): self[indices] resolved into the dims it keeps and, per point of
// the broadcast index shape, the position along each indexed dim.
#include "advanced_index.h"

#include "elementwise.h"

namespace shimgen::rt::cpu {
namespace {

// An index tensor's values as int64 in row-major order.
std::vector<int64_t> index_values(const Tensor& t) {
  std::vector<int64_t> v;
  v.reserve(static_cast<size_t>(t.numel()));
  if (t.dtype == kInt64) {
    const auto* p = reinterpret_cast<const int64_t*>(t.data());
    for_each_element(t, [&](int64_t at) { v.push_back(p[at]); });
  } else if (t.dtype == kInt32) {
    const auto* p = reinterpret_cast<const int32_t*>(t.data());
    for_each_element(t, [&](int64_t at) { v.push_back(p[at]); });
  } else {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "index: tensors used as indices must be long, int, byte or bool tensors");
  }
  return v;
}

struct Index {  // one indexed dim: its values over its own shape (row-major)
  std::vector<int64_t> sizes, values;
};

}  // namespace

std::vector<const Tensor*> index_tensors(const AtenTensorHandle* const* indices, int64_t count) {
  SHIMGEN_REQUIRE(count >= 0 && (indices != nullptr || count == 0), "indices is null");
  std::vector<const Tensor*> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(indices[i] == nullptr || *indices[i] == nullptr ? nullptr : &cpu_tensor(*indices[i], "indices"));
  return out;
}

AdvancedIndex::AdvancedIndex(const Tensor& in, const std::vector<const Tensor*>& indices) : self_sizes_(in.sizes) {
  const size_t rank = in.sizes.size();
  // Per dim of self: null (kept) or the index over its own shape; masks expand to their coordinates.
  std::vector<std::unique_ptr<Index>> per_dim;
  for (const Tensor* t : indices) {
    if (t == nullptr) {
      per_dim.emplace_back();
      continue;
    }
    if (t->dtype == kBool || t->dtype == kUInt8) {
      const size_t first = per_dim.size();
      SHIMGEN_REQUIRE(first + t->sizes.size() <= rank, "index: too many indices for tensor of dimension " +
                                                           std::to_string(rank));
      for (size_t d = 0; d < t->sizes.size(); ++d)
        SHIMGEN_REQUIRE(t->sizes[d] == in.sizes[first + d],
                        "index: the shape of the mask at index " + std::to_string(d) +
                            " does not match the shape of the indexed tensor at index " + std::to_string(first + d));
      if (t->sizes.empty()) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "index: a 0-d mask is not supported");
      std::vector<std::vector<int64_t>> coords(t->sizes.size());
      std::vector<int64_t> at(t->sizes.size(), 0);
      const auto* p = reinterpret_cast<const uint8_t*>(t->data());
      for_each_element(*t, [&](int64_t off) {
        if (p[off] != 0)
          for (size_t d = 0; d < at.size(); ++d) coords[d].push_back(at[d]);
        for (size_t d = at.size(); d-- > 0;) {
          if (++at[d] < t->sizes[d]) break;
          at[d] = 0;
        }
      });
      for (auto& c : coords) {
        auto idx = std::make_unique<Index>();
        idx->sizes = {static_cast<int64_t>(c.size())};
        idx->values = std::move(c);
        per_dim.push_back(std::move(idx));
      }
      continue;
    }
    auto idx = std::make_unique<Index>();
    idx->sizes = t->sizes;
    idx->values = index_values(*t);
    per_dim.push_back(std::move(idx));
  }
  SHIMGEN_REQUIRE(per_dim.size() <= rank, "index: too many indices for tensor of dimension " + std::to_string(rank));
  per_dim.resize(rank);
  // Broadcast shape of the index tensors, and whether the indexed dims are adjacent.
  std::vector<int64_t> shape;
  bool any = false, adjacent = true;
  int state = 0;  // 0: before the first indexed dim, 1: in the indexed run, 2: after it
  for (const auto& idx : per_dim) {
    if (idx) {
      shape = any ? elementwise::broadcast_shape(shape, idx->sizes) : idx->sizes;
      any = true;
      if (state == 2) adjacent = false;
      state = state == 0 ? 1 : state;
    } else if (state == 1) {
      state = 2;
    }
  }
  SHIMGEN_REQUIRE(any, "index: no index tensor given");
  // Order of self's dims in the result: indexed ones (replaced by `shape`) at the first indexed
  // position when adjacent, else in front.
  for (size_t d = 0; d < rank; ++d) {
    if (per_dim[d]) indexed_.push_back(d);
    else if (adjacent && indexed_.empty()) before_.push_back(d);
    else after_.push_back(d);
  }
  for (size_t d : before_) sizes_.push_back(in.sizes[d]);
  sizes_.insert(sizes_.end(), shape.begin(), shape.end());
  for (size_t d : after_) sizes_.push_back(in.sizes[d]);
  // Each index's values at every point of `shape` (broadcast), checked and wrapped.
  for (int64_t s : shape) points_ = checked_mul(points_, s, "index shape");
  at_point_.assign(indexed_.size(), std::vector<int64_t>(static_cast<size_t>(points_)));
  for (size_t k = 0; k < indexed_.size(); ++k) {
    const Index& idx = *per_dim[indexed_[k]];
    const int64_t extent = in.sizes[indexed_[k]];
    std::vector<int64_t> own = contiguous_strides_of(idx.sizes), bstride(shape.size(), 0);
    const size_t lead = shape.size() - idx.sizes.size();
    for (size_t d = 0; d < idx.sizes.size(); ++d) bstride[lead + d] = idx.sizes[d] == 1 ? 0 : own[d];
    std::vector<int64_t> pos(shape.size(), 0);
    for (int64_t p = 0; p < points_; ++p) {
      int64_t off = 0;
      for (size_t d = 0; d < shape.size(); ++d) off += pos[d] * bstride[d];
      const int64_t v = idx.values[static_cast<size_t>(off)];
      SHIMGEN_REQUIRE(v >= -extent && v < extent, "index " + std::to_string(v) + " is out of bounds for dimension " +
                                                      std::to_string(indexed_[k]) + " with size " +
                                                      std::to_string(extent));
      at_point_[k][static_cast<size_t>(p)] = v < 0 ? v + extent : v;
      for (size_t d = shape.size(); d-- > 0;) {
        if (++pos[d] < shape[d]) break;
        pos[d] = 0;
      }
    }
  }
}

}  // namespace shimgen::rt::cpu
