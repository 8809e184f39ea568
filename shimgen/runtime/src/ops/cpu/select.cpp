// aten::select.int (served by the proxy executor, for CPU and CUDA tensors alike: inductor indexes
// real tensors itself and hands complex ones to the proxy, as z[0] of a complex batch): a view of
// self without dim, at position index along it (negative from the end), sharing its storage.
// torch's checks and messages.
#include <string>

#include "../views.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::select(const Tensor& in, int64_t dim, int64_t index) {
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(rank > 0, "select() cannot be applied to a 0-dim tensor.");
  const size_t d = static_cast<size_t>(wrap_dim(dim, rank, "dim"));
  const int64_t size = in.sizes[d];
  if (index < -size || index >= size) {
    std::string shape = "[";
    for (size_t i = 0; i < in.sizes.size(); ++i) shape += (i ? ", " : "") + std::to_string(in.sizes[i]);
    fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "select(): index " + std::to_string(index) +
                                                     " out of range for tensor of size " + shape + "] at dimension " +
                                                     std::to_string(d));
  }
  const int64_t at = index < 0 ? index + size : index;
  auto view = alias(in);
  view->storage_offset =
      checked_add(in.storage_offset, checked_mul(at, in.strides[d], "select offset"), "select offset");
  view->sizes.erase(view->sizes.begin() + static_cast<int64_t>(d));
  view->strides.erase(view->strides.begin() + static_cast<int64_t>(d));
  return view;
}
