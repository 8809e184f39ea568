// aten::unsqueeze (served by the proxy executor: inductor views real tensors itself and hands
// complex ones to the proxy, as around DeepSeek-V2's complex rotary embedding): a view of self with
// a size-1 dim inserted at dim, sharing its storage; the new stride is torch's (sizes[dim] *
// strides[dim], or 1 at the end).
#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_unsqueeze(AtenTensorHandle self, int64_t dim) {
  const Tensor& in = cpu_tensor(self, "self");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(dim >= -(rank + 1) && dim <= rank, "unsqueeze: dim " + std::to_string(dim) + " is out of range");
  const int64_t d = dim < 0 ? dim + rank + 1 : dim;
  auto view = new_tensor();
  view->storage = in.storage;
  view->dtype = in.dtype;
  view->storage_offset = in.storage_offset;
  view->sizes = in.sizes;
  view->strides = in.strides;
  const int64_t stride = d >= rank ? 1 : checked_mul(in.sizes[static_cast<size_t>(d)], in.strides[static_cast<size_t>(d)], "stride");
  view->sizes.insert(view->sizes.begin() + d, 1);
  view->strides.insert(view->strides.begin() + d, stride);
  return wrap(std::move(view));
}

}  // namespace shimgen::rt::proxy_ops
