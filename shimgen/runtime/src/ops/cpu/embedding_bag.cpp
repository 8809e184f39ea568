// aoti_torch_cpu__embedding_bag and _embedding_bag_forward_only: nn.EmbeddingBag / F.embedding_bag
// (recommenders, bag-of-words and hashed n-gram features). Bags are [offsets[b], offsets[b + 1]) of
// the 1-d indices (the last runs to the end of indices, with include_last_offset too: torch's CPU
// kernel ignores the final offset there); entries
// equal to padding_idx (>= 0) are skipped. mode 0 sums (times per_sample_weights when given), 1
// averages over the non-padding entries, 2 takes the element-wise max (first index wins ties); an
// empty bag gives zeros. The three auxiliary outputs follow torch's CPU kernel, in the indices' dtype:
// offset2bag ([N] bag of each entry; [0] for a sum without padding_idx), bag_size ([B] counts; zeros
// for a sum), max_indices ([B, D] rows of the max for mode 2; bag_size again for mean; zeros for sum).
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

int64_t read_index(const Tensor& t, int64_t i) {
  const int64_t at = i * t.strides[0];
  return t.dtype == kInt32 ? reinterpret_cast<const int32_t*>(t.data())[at]
                           : reinterpret_cast<const int64_t*>(t.data())[at];
}

void write_index(Tensor& t, int64_t at, int64_t v) {
  if (t.dtype == kInt32) reinterpret_cast<int32_t*>(t.data())[at] = static_cast<int32_t>(v);
  else reinterpret_cast<int64_t*>(t.data())[at] = v;
}

template <class T> void bags(const Tensor& weight, const std::vector<int64_t>& index,
                             const std::vector<int64_t>& starts, int64_t mode, const Tensor* psw, int64_t padding_idx,
                             Tensor& out, Tensor& bag_size, Tensor* max_indices) {
  const int64_t B = out.sizes[0], D = out.sizes[1];
  const auto* w = reinterpret_cast<const T*>(weight.data());
  auto* o = reinterpret_cast<T*>(out.data());
  std::vector<double> acc(static_cast<size_t>(D));
  std::vector<int64_t> arg(static_cast<size_t>(D));
  for (int64_t b = 0; b < B; ++b) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(arg.begin(), arg.end(), 0);
    int64_t count = 0;
    for (int64_t e = starts[b]; e < starts[b + 1]; ++e) {
      const int64_t row = index[static_cast<size_t>(e)];
      if (row == padding_idx) continue;
      const double scale =
          psw != nullptr ? static_cast<double>(value_of(reinterpret_cast<const T*>(psw->data())[e * psw->strides[0]]))
                         : 1.0;
      for (int64_t d = 0; d < D; ++d) {
        const double v = static_cast<double>(value_of(w[row * weight.strides[0] + d * weight.strides[1]]));
        if (mode == 2) {
          if (count == 0 || v > acc[static_cast<size_t>(d)]) {
            acc[static_cast<size_t>(d)] = v;
            arg[static_cast<size_t>(d)] = row;
          }
        } else {
          acc[static_cast<size_t>(d)] += v * scale;
        }
      }
      ++count;
    }
    for (int64_t d = 0; d < D; ++d) {
      double v = acc[static_cast<size_t>(d)];
      if (mode == 1 && count > 0) v /= static_cast<double>(count);
      if constexpr (std::is_same_v<T, double>) o[b * D + d] = v;
      else o[b * D + d] = T(static_cast<float>(v));
      if (max_indices != nullptr) write_index(*max_indices, b * D + d, arg[static_cast<size_t>(d)]);
    }
    write_index(bag_size, b, mode == 0 ? 0 : count);
  }
}

void embedding_bag(AtenTensorHandle weight_h, AtenTensorHandle indices_h, AtenTensorHandle offsets_h, int64_t mode,
                   AtenTensorHandle* per_sample_weights, int32_t include_last_offset, int64_t padding_idx,
                   AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3,
                   bool forward_only) {
  const Tensor& weight = cpu_tensor(weight_h, "weight");
  const Tensor& indices = cpu_tensor(indices_h, "indices");
  const Tensor& offsets = cpu_tensor(offsets_h, "offsets");
  const Tensor* psw = optional_tensor(per_sample_weights, "per_sample_weights");
  for (auto* r : {ret0, ret1, ret2, ret3}) require_out(r, "ret");
  SHIMGEN_REQUIRE(weight.sizes.size() == 2, "weight must be 2-d, got " + shape_str(weight.sizes));
  SHIMGEN_REQUIRE(indices.sizes.size() == 1 && offsets.sizes.size() == 1, "indices and offsets must be 1-d");
  SHIMGEN_REQUIRE((indices.dtype == kInt64 || indices.dtype == kInt32) && offsets.dtype == indices.dtype,
                  "indices and offsets must both be int64 or both int32");
  SHIMGEN_REQUIRE(mode >= 0 && mode <= 2, "mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
  SHIMGEN_REQUIRE(psw == nullptr || (mode == 0 && psw->sizes.size() == 1 && psw->sizes[0] == indices.sizes[0] &&
                                     psw->dtype == weight.dtype),
                  "per_sample_weights must be [N] of weight's dtype and only with mode='sum'");
  const int64_t N = indices.sizes[0], rows = weight.sizes[0], D = weight.sizes[1];
  const int64_t B = offsets.sizes[0] - (include_last_offset != 0 ? 1 : 0);
  SHIMGEN_REQUIRE(B >= 0, "include_last_offset needs at least one offset");
  std::vector<int64_t> index(static_cast<size_t>(N)), starts(static_cast<size_t>(B + 1));
  for (int64_t i = 0; i < N; ++i) {
    index[static_cast<size_t>(i)] = read_index(indices, i);
    SHIMGEN_REQUIRE(index[static_cast<size_t>(i)] >= 0 && index[static_cast<size_t>(i)] < rows,
                    "embedding_bag: index " + std::to_string(index[static_cast<size_t>(i)]) + " out of range [0, " +
                        std::to_string(rows) + ")");
  }
  for (int64_t b = 0; b < B; ++b) starts[static_cast<size_t>(b)] = read_index(offsets, b);
  starts[static_cast<size_t>(B)] = N;  // with include_last_offset too: torch's CPU kernel ignores offsets[B]
  SHIMGEN_REQUIRE(B == 0 || starts[0] == 0,
                  "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                  "start from position 0. However, got " +
                      std::to_string(starts[0]));
  for (int64_t b = 0; b < B; ++b)
    SHIMGEN_REQUIRE(
        starts[static_cast<size_t>(b)] <= starts[static_cast<size_t>(b + 1)] && starts[static_cast<size_t>(b + 1)] <= N,
        "offsets must be non-decreasing and at most the number of indices");
  const int32_t itype = indices.dtype;
  auto out = empty_tensor({B, D}, {D, 1}, weight.dtype, kCPU, -1);
  const bool has_offset2bag = mode != 0 || padding_idx >= 0;
  auto offset2bag = empty_tensor({has_offset2bag ? N : 0}, {1}, itype, kCPU, -1);
  // A sum's bag_size and max_indices are zeros: one per bag, but one per offset (include_last_offset's
  // too) from _embedding_bag_forward_only, as torch's CPU kernels make them.
  const int64_t aux = mode == 0 && forward_only ? offsets.sizes[0] : B;
  auto bag_size = empty_tensor({aux}, {1}, itype, kCPU, -1);
  auto max_indices =
      mode == 2 ? empty_tensor({B, D}, {D, 1}, itype, kCPU, -1) : empty_tensor({aux}, {1}, itype, kCPU, -1);
  if (has_offset2bag) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t e = starts[static_cast<size_t>(b)]; e < starts[static_cast<size_t>(b + 1)]; ++e)
        write_index(*offset2bag, e, b);
    for (int64_t e = starts[static_cast<size_t>(B)]; e < N; ++e) write_index(*offset2bag, e, 0);  // past the last bag
  }
  dispatch_floating(weight.dtype, "embedding_bag", [&](auto t) {
    bags<decltype(t)>(weight, index, starts, mode, psw, padding_idx, *out, *bag_size,
                      mode == 2 ? max_indices.get() : nullptr);
  });
  if (mode == 0)
    for (int64_t b = 0; b < aux; ++b) {
      write_index(*bag_size, b, 0);
      write_index(*max_indices, b, 0);
    }
  if (mode == 1)
    for (int64_t b = 0; b < B; ++b) write_index(*max_indices, b, read_index(*bag_size, b));
  *ret0 = wrap(std::move(out));
  *ret1 = wrap(std::move(offset2bag));
  *ret2 = wrap(std::move(bag_size));
  *ret3 = wrap(std::move(max_indices));
}

}  // namespace

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__embedding_bag(AtenTensorHandle weight, AtenTensorHandle indices,
                                                              AtenTensorHandle offsets, int32_t scale_grad_by_freq,
                                                              int64_t mode, int32_t sparse,
                                                              AtenTensorHandle* per_sample_weights,
                                                              int32_t include_last_offset, int64_t padding_idx,
                                                              AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                              AtenTensorHandle* ret2, AtenTensorHandle* ret3) {
  (void)scale_grad_by_freq;  // gradient-only options
  (void)sparse;
  return guarded(__func__, [&] {
    embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, ret0, ret1,
                  ret2, ret3, false);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets, int32_t scale_grad_by_freq,
    int64_t mode, int32_t sparse, AtenTensorHandle* per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return guarded(__func__, [&] {
    embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx, ret0, ret1,
                  ret2, ret3, true);
  });
}

}  // extern "C"
