// aoti_torch_cpu_cat: torch.cat of a list of tensors along dim into a new tensor. Inductor
// concatenates real tensors itself and falls back for complex ones (Qwen-Image's rotary tables:
// torch.cat of complex frequency slices, diffusers' QwenEmbedRope). torch's rules (TensorShape.cpp,
// cat's meta function): 1-d empty tensors ([0]) are skipped (legacy), the first other tensor fixes
// the rank and wraps dim, every other must match its sizes except along dim; 0-d tensors are refused;
// the result is channels-last (2-d or 3-d) when every input's suggested memory format is, else
// contiguous (the strides inductor's generated code indexes it with). One dtype for every input
// (any dtype: a copy of the bytes); mixed dtypes, which torch promotes, are refused as unsupported.
#include <string>

#include "../cat.h"
#include "../proxy_ops.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::cat {
namespace {

void require_one_dtype(const std::vector<const Tensor*>& in) {
  for (const Tensor* t : in)
    if (t->dtype != in[0]->dtype)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("cat: inputs of different dtypes (") +
                                                  scalar_type_name(in[0]->dtype) + ", " + scalar_type_name(t->dtype) +
                                                  ") are not served (torch promotes them)");
}

}  // namespace

Layout layout(const std::vector<const Tensor*>& in, int64_t dim) {
  for (size_t i = 0; i < in.size(); ++i)
    SHIMGEN_REQUIRE(!in[i]->sizes.empty(),
                    "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
  const Tensor* ref = nullptr;  // the first tensor that is not a skipped 1-d empty one
  for (const Tensor* t : in)
    if (!skipped(*t)) {
      ref = t;
      break;
    }
  Layout out;
  if (ref == nullptr) {  // every input is a 1-d empty tensor: an empty [0] result
    require_one_dtype(in);
    out.sizes = {0};
    out.strides = {1};
    return out;
  }
  const int64_t rank = static_cast<int64_t>(ref->sizes.size());
  const size_t d = static_cast<size_t>(wrap_dim(dim, rank, "dim"));
  std::vector<int64_t> sizes = ref->sizes;
  sizes[d] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = *in[i];
    if (skipped(t)) continue;
    SHIMGEN_REQUIRE(static_cast<int64_t>(t.sizes.size()) == rank, "Tensors must have same number of dimensions: got " +
                                                                      std::to_string(rank) + " and " +
                                                                      std::to_string(t.sizes.size()));
    for (size_t k = 0; k < sizes.size(); ++k)
      SHIMGEN_REQUIRE(k == d || t.sizes[k] == ref->sizes[k],
                      "Sizes of tensors must match except in dimension " + std::to_string(d) + ". Expected size " +
                          std::to_string(ref->sizes[k]) + " but got size " + std::to_string(t.sizes[k]) +
                          " for tensor number " + std::to_string(i) + " in the list.");
    sizes[d] = checked_add(sizes[d], t.sizes[d], "cat size");
  }
  require_one_dtype(in);  // after the checks torch makes too (it promotes where this refuses)
  // torch's cat_compute_output_memory_format: every input (skipped ones too) suggests channels-last.
  bool channels_last = true;
  for (const Tensor* t : in) channels_last &= channels_last_strides(t->sizes, t->strides);
  const int64_t format = rank == 4 ? proxy_ops::kChannelsLast : proxy_ops::kChannelsLast3d;
  out.strides = channels_last ? proxy_ops::clone_strides(sizes, {}, format) : contiguous_strides_of(sizes);
  out.sizes = std::move(sizes);
  out.dim = d;
  return out;
}

}  // namespace shimgen::rt::cat

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cat(const AtenTensorHandle* tensors, int64_t tensors_len_,
                                                              int64_t dim, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(tensors_len_ > 0, "torch.cat(): expected a non-empty list of Tensors");
    SHIMGEN_REQUIRE(tensors != nullptr, "cat: tensors is null");
    require_out(ret0, "ret0");
    std::vector<const Tensor*> in;
    in.reserve(static_cast<size_t>(tensors_len_));
    for (int64_t i = 0; i < tensors_len_; ++i) in.push_back(&cpu_tensor(tensors[i], "tensors"));
    const cat::Layout plan = cat::layout(in, dim);
    auto out = empty_tensor(plan.sizes, plan.strides, in[0]->dtype, kCPU, -1);
    cat::copy_pieces(in, plan, *out, [&](char* to, const Tensor& t) {
      host_strided_copy(to, out->strides.data(), t.data(), t.strides.data(), t.sizes, t.itemsize());
    });
    *ret0 = wrap(std::move(out));
  });
}
