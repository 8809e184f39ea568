// aoti_torch_cpu_index_Tensor: advanced indexing self[indices] (boolean-mask selection x[x > t],
// gathers by index tensors; data-dependent shapes). indices[i] is null (None: the dim is kept) or a
// handle to an int64/int32 index tensor (negative counts from the end) or a bool/uint8 mask, which
// stands for as many dims as it has (its nonzero coordinates). Index tensors broadcast together;
// their shape replaces the indexed dims where they are adjacent, else goes in front (numpy's rule).
// A new tensor of self's dtype in torch's layout (result_strides: contiguous unless self is laid out
// otherwise, as a channels-last image); any dtype (elements are copied as bytes). The plan (shape,
// layout, each point's offset into self: ../index_plan.h) serves the CUDA op's device gather too.
#include <algorithm>

#include "../index_plan.h"
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

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

// torch's layout for the result (meta_index_Tensor, which inductor compiles against): the dims of
// self seen at the result's shape (indexed ones stride 0) ordered as TensorIterator orders one
// operand (compute_elementwise_output_logical_to_physical_perm), then made dense. Contiguous for a
// contiguous self; channels-last self keeps channels last.
std::vector<int64_t> result_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t n = sizes.size();
  auto dense_in = [&](const std::vector<size_t>& inner_first) {  // torch's is_contiguous for that order
    int64_t expected = 1;
    for (size_t d : inner_first) {
      if (sizes[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  };
  std::vector<size_t> row_major(n);
  for (size_t i = 0; i < n; ++i) row_major[i] = n - 1 - i;
  const bool contiguous = n <= 1 || dense_in(row_major);
  const bool channels_last = n == 4 && dense_in({1, 3, 2, 0});
  if (contiguous && !channels_last) return contiguous_strides_of(sizes);
  if (channels_last && !contiguous) {  // [N, C, H, W] laid out N, H, W, C
    const int64_t c = std::max<int64_t>(sizes[1], 1), cw = checked_mul(c, std::max<int64_t>(sizes[3], 1), "size");
    return {checked_mul(cw, std::max<int64_t>(sizes[2], 1), "size"), 1, cw, c};
  }
  std::vector<int64_t> out(n);
  dense_strides_in_order(sizes, strides.data(), out.data());
  return out;
}

struct Index {                                  // one indexed dim: its values over the broadcast index shape
  std::vector<int64_t> sizes, strides, values;  // values row-major over sizes (strides: broadcast view)
};

}  // namespace

index_plan::Plan index_plan::plan(const Tensor& in, const std::vector<const Tensor*>& indices) {
  const size_t rank = in.sizes.size();
  // Per dim of self: null (kept) or the index over its own shape; masks expand to their coordinates.
  std::vector<std::unique_ptr<Index>> per_dim;
  for (const Tensor* index : indices) {
    if (index == nullptr) {
      per_dim.emplace_back();
      continue;
    }
    const Tensor& t = *index;
    if (t.dtype == kBool || t.dtype == kUInt8) {
      const size_t first = per_dim.size();
      SHIMGEN_REQUIRE(first + t.sizes.size() <= rank,
                      "index: too many indices for tensor of dimension " + std::to_string(rank));
      for (size_t d = 0; d < t.sizes.size(); ++d)
        SHIMGEN_REQUIRE(t.sizes[d] == in.sizes[first + d],
                        "index: the shape of the mask at index " + std::to_string(d) +
                            " does not match the shape of the indexed tensor at index " + std::to_string(first + d));
      std::vector<std::vector<int64_t>> coords(t.sizes.size());
      std::vector<int64_t> at(t.sizes.size(), 0);
      const auto* p = reinterpret_cast<const uint8_t*>(t.data());
      for_each_element(t, [&](int64_t off) {
        if (p[off] != 0)
          for (size_t d = 0; d < at.size(); ++d) coords[d].push_back(at[d]);
        for (size_t d = at.size(); d-- > 0;) {
          if (++at[d] < t.sizes[d]) break;
          at[d] = 0;
        }
      });
      for (auto& c : coords) {
        auto idx = std::make_unique<Index>();
        idx->sizes = {static_cast<int64_t>(c.size())};
        idx->values = std::move(c);
        per_dim.push_back(std::move(idx));
      }
      if (t.sizes.empty()) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "index: a 0-d mask is not supported");
      continue;
    }
    auto idx = std::make_unique<Index>();
    idx->sizes = t.sizes;
    idx->values = index_values(t);
    per_dim.push_back(std::move(idx));
  }
  SHIMGEN_REQUIRE(per_dim.size() <= rank, "index: too many indices for tensor of dimension " + std::to_string(rank));
  per_dim.resize(rank);
  // Broadcast shape of the index tensors, and whether the indexed dims are adjacent.
  std::vector<int64_t> shape;
  bool any = false;
  int state = 0;
  bool adjacent = true;
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
  std::vector<size_t> before, after, indexed;
  for (size_t d = 0; d < rank; ++d) {
    if (per_dim[d]) indexed.push_back(d);
    else if (adjacent && (indexed.empty())) before.push_back(d);
    else after.push_back(d);
  }
  std::vector<int64_t> out_sizes;
  for (size_t d : before) out_sizes.push_back(in.sizes[d]);
  out_sizes.insert(out_sizes.end(), shape.begin(), shape.end());
  for (size_t d : after) out_sizes.push_back(in.sizes[d]);
  // Each point's offset into self: the sum over the indexed dims of its (checked, wrapped) index
  // there, broadcast over `shape`, times self's stride.
  int64_t points = 1;
  for (int64_t s : shape) points = checked_mul(points, s, "index shape");
  Plan plan;
  plan.point_offsets.assign(static_cast<size_t>(points), 0);
  for (size_t k = 0; k < indexed.size(); ++k) {
    const Index& idx = *per_dim[indexed[k]];
    const int64_t extent = in.sizes[indexed[k]], stride = in.strides[indexed[k]];
    std::vector<int64_t> own = contiguous_strides_of(idx.sizes), bstride(shape.size(), 0);
    const size_t lead = shape.size() - idx.sizes.size();
    for (size_t d = 0; d < idx.sizes.size(); ++d) bstride[lead + d] = idx.sizes[d] == 1 ? 0 : own[d];
    std::vector<int64_t> pos(shape.size(), 0);
    for (int64_t p = 0; p < points; ++p) {
      int64_t off = 0;
      for (size_t d = 0; d < shape.size(); ++d) off += pos[d] * bstride[d];
      int64_t v = idx.values[static_cast<size_t>(off)];
      SHIMGEN_REQUIRE(v >= -extent && v < extent, "index " + std::to_string(v) + " is out of bounds for dimension " +
                                                      std::to_string(indexed[k]) + " with size " +
                                                      std::to_string(extent));
      plan.point_offsets[static_cast<size_t>(p)] += (v < 0 ? v + extent : v) * stride;
      for (size_t d = shape.size(); d-- > 0;) {
        if (++pos[d] < shape[d]) break;
        pos[d] = 0;
      }
    }
  }
  plan.sizes = out_sizes;
  for (size_t d : before) plan.self_strides.push_back(in.strides[d]);
  plan.self_strides.insert(plan.self_strides.end(), shape.size(), 0);
  for (size_t d : after) {
    plan.self_strides.push_back(in.strides[d]);
    plan.after *= in.sizes[d];
  }
  plan.strides = in.numel() == 0 ? contiguous_strides_of(out_sizes) : result_strides(out_sizes, plan.self_strides);
  return plan;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_index_Tensor(AtenTensorHandle self,
                                                                       const AtenTensorHandle** indices,
                                                                       int64_t indices_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(indices_len_ >= 0 && (indices != nullptr || indices_len_ == 0), "indices is null");
    std::vector<const Tensor*> index(static_cast<size_t>(indices_len_), nullptr);
    for (size_t i = 0; i < index.size(); ++i)
      if (indices[i] != nullptr && *indices[i] != nullptr) index[i] = &cpu_tensor(*indices[i], "indices");
    const index_plan::Plan plan = index_plan::plan(in, index);
    auto out = empty_tensor(plan.sizes, plan.strides, in.dtype, kCPU, -1);
    const int64_t item = static_cast<int64_t>(in.itemsize());
    const std::vector<int64_t>* strides[2] = {&plan.strides, &plan.self_strides};
    int64_t k = 0;  // the element's row-major position
    if (out->numel() > 0)
      elementwise::for_each(plan.sizes, strides, [&](const int64_t* at) {
        const int64_t from = at[1] + plan.point_offsets[static_cast<size_t>((k++ / plan.after) % plan.points())];
        std::memcpy(out->data() + at[0] * item, in.data() + from * item, static_cast<size_t>(item));
      });
    *ret0 = wrap(std::move(out));
  });
}
