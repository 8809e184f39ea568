// aten::unsqueeze (served by the proxy executor, for CPU and CUDA tensors alike: inductor views real
// tensors itself and hands complex ones to the proxy, as around DeepSeek-V2's complex rotary
// embedding): a view of self with a size-1 dim inserted at dim, sharing its storage; the new stride
// is torch's (sizes[dim] * strides[dim], or 1 at the end).
#include "../views.h"
#include "cpu_op.h"

using namespace shimgen::rt;

std::unique_ptr<Tensor> shimgen::rt::views::unsqueeze(const Tensor& in, int64_t dim) {
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(dim >= -(rank + 1) && dim <= rank, "unsqueeze: dim " + std::to_string(dim) + " is out of range");
  const int64_t d = dim < 0 ? dim + rank + 1 : dim;
  auto view = alias(in);
  const int64_t stride =
      d >= rank ? 1 : checked_mul(in.sizes[static_cast<size_t>(d)], in.strides[static_cast<size_t>(d)], "stride");
  view->sizes.insert(view->sizes.begin() + d, 1);
  view->strides.insert(view->strides.begin() + d, stride);
  return view;
}
