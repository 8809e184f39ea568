// aoti_torch_index_put_out: out = self, then out[indices] = values (accumulate: +=); the common shim
// (no device in its name) that AOTInductor calls for index_put_ when it does not generate the
// scatter itself: a boolean-mask index (x[mask] = v, x[mask] += v), accumulation into int64 or bool
// (its atomic adds lack them), or deterministic algorithms. The generated call passes one tensor as
// out and self (in place). indices follow index_Tensor's plan (../index_plan.h: null entries are None,
// masks stand for their nonzero coordinates); values (self's dtype) broadcast to the shape of
// self[indices]. Accumulation runs in that shape's row-major order, each sum rounded to self's dtype
// (torch's serial CPU kernel); bool accumulates as logical or. Without accumulate a position indexed
// twice takes the later value. A CUDA out is staged through the host (ops/cuda/host_staged.h): the
// same CPU code on host copies, the result copied back into out.
#include "../cuda/host_staged.h"
#include "../index_plan.h"
#include "cpu_op.h"
#include "elementwise.h"
#include "shimgen_runtime/shim.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T> void put(const Tensor& out, const index_plan::Plan& plan, const Tensor& values, bool accumulate) {
  int64_t numel = 1;
  for (int64_t n : plan.sizes) numel *= n;
  if (numel == 0) return;
  const std::vector<int64_t> vs = elementwise::broadcast_strides(values, plan.sizes);
  const std::vector<int64_t>* strides[2] = {&plan.self_strides, &vs};
  auto* dst = reinterpret_cast<T*>(out.data());
  const auto* src = reinterpret_cast<const T*>(values.data());
  int64_t k = 0;  // the element's row-major position in self[indices]
  elementwise::for_each(plan.sizes, strides, [&](const int64_t* at) {
    const int64_t off = at[0] + plan.point_offsets[static_cast<size_t>((k++ / plan.after) % plan.points())];
    const T v = src[at[1]];
    if (!accumulate) dst[off] = v;
    else if constexpr (std::is_same_v<T, bool>) dst[off] = dst[off] || v;
    else if constexpr (is_floating_v<T> && !std::is_floating_point_v<T>) dst[off] = T(float(dst[off]) + float(v));
    else dst[off] = static_cast<T>(dst[off] + v);
  });
}

// The CPU op: every check, then out = self (when they differ), then the writes.
void index_put_cpu(AtenTensorHandle out, AtenTensorHandle self, const AtenTensorHandle* indices, uint32_t count,
                   AtenTensorHandle values, bool accumulate) {
  const Tensor& o = cpu_tensor(out, "out");
  const Tensor& s = cpu_tensor(self, "self");
  const Tensor& v = cpu_tensor(values, "values");
  SHIMGEN_REQUIRE(indices != nullptr || count == 0, "indices is null");
  SHIMGEN_REQUIRE(o.sizes == s.sizes && o.dtype == s.dtype, "index_put_: out must have self's shape and dtype");
  SHIMGEN_REQUIRE(v.dtype == s.dtype, "Index put requires the source and destination dtypes match (dtype codes " +
                                          std::to_string(s.dtype) + " and " + std::to_string(v.dtype) + ")");
  std::vector<const Tensor*> index;
  for (uint32_t i = 0; i < count; ++i)
    index.push_back(indices[i] == nullptr ? nullptr : &cpu_tensor(indices[i], "indices"));
  const index_plan::Plan plan = index_plan::plan(o, index);  // offsets into out (self's sizes, out's strides)
  SHIMGEN_REQUIRE(
      v.sizes.size() <= plan.sizes.size() && elementwise::broadcast_shape(plan.sizes, v.sizes) == plan.sizes,
      "shape mismatch: value tensor of shape " + shape_str(v.sizes) +
          " cannot be broadcast to indexing result of shape " + shape_str(plan.sizes));
  dispatch_real(s.dtype, "index_put_", [&](auto) {});  // a dtype refused before the first write
  if (out != self) cuda_ops::HostStaged::check(aoti_torch_copy_(out, self, 0), "copy_");
  dispatch_real(s.dtype, "index_put_", [&](auto t) { put<decltype(t)>(o, plan, v, accumulate); });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_index_put_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                    const AtenTensorHandle* indices,
                                                                    const uint32_t num_indices,
                                                                    const AtenTensorHandle values, bool accumulate) {
  return guarded(__func__, [&] {
    const Tensor& o = *unwrap(out, "out");
    if (o.storage->device_type == kCPU) return index_put_cpu(out, self, indices, num_indices, values, accumulate);
    SHIMGEN_REQUIRE(o.storage->device_type == kCUDA, "index_put_: out is neither a CPU nor a CUDA tensor");
    cuda_ops::HostStaged s;
    std::vector<AtenTensorHandle> host_indices;
    for (uint32_t i = 0; i < num_indices; ++i) host_indices.push_back(s.host(indices[i]));
    AtenTensorHandle host_out = s.host(out);
    AtenTensorHandle host_self = out == self ? host_out : s.host(self);
    index_put_cpu(host_out, host_self, host_indices.data(), num_indices, s.host(values), accumulate);
    s.copy_back(out, host_out);
  });
}
