// aten::expand (served by the proxy executor, for CPU and CUDA tensors alike: inductor expands real
// tensors itself and hands complex ones to the proxy, as before a batched complex matmul): a view of
// self with size-1 dims, and new leading dims, stretched to `size` with stride 0, sharing its
// storage. torch's inferExpandGeometry: its checks and messages, -1 keeps a size.
#include <string>

#include "../views.h"
#include "cpu_op.h"

using namespace shimgen::rt;

namespace {

std::string list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

std::unique_ptr<Tensor> shimgen::rt::views::expand(const Tensor& in, const std::vector<int64_t>& size) {
  const int64_t ndim = static_cast<int64_t>(size.size());
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(ndim >= rank, "expand: the number of sizes provided (" + std::to_string(ndim) +
                                    ") must be greater or equal to the number of dimensions in the tensor (" +
                                    std::to_string(rank) + ")");
  auto view = alias(in);
  view->sizes.assign(size.size(), 0);
  view->strides.assign(size.size(), 0);
  if (rank == 0) {  // a 0-d self: every dim new, every stride 0
    for (size_t i = 0; i < size.size(); ++i) {
      SHIMGEN_REQUIRE(size[i] >= 0, "expand: invalid size " + std::to_string(size[i]) + " at dim " + std::to_string(i));
      view->sizes[i] = size[i];
    }
    return view;
  }
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t dim = rank - 1 - (ndim - 1 - i);  // self's dim under i (negative: a new leading dim)
    int64_t extent = dim >= 0 ? in.sizes[static_cast<size_t>(dim)] : 1;
    int64_t stride = dim >= 0 ? in.strides[static_cast<size_t>(dim)]
                              : (i + 1 < ndim ? checked_mul(view->sizes[static_cast<size_t>(i + 1)],
                                                            view->strides[static_cast<size_t>(i + 1)], "stride")
                                              : 1);
    int64_t target = size[static_cast<size_t>(i)];
    if (target == -1) {
      SHIMGEN_REQUIRE(dim >= 0,
                      "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                      "dimension " +
                          std::to_string(i));
      target = extent;
    }
    SHIMGEN_REQUIRE(target >= 0, "expand: invalid size " + std::to_string(target) + " at dim " + std::to_string(i));
    if (extent != target) {
      SHIMGEN_REQUIRE(extent == 1, "The expanded size of the tensor (" + std::to_string(target) +
                                       ") must match the existing size (" + std::to_string(extent) +
                                       ") at non-singleton dimension " + std::to_string(i) +
                                       ".  Target sizes: " + list(size) + ".  Tensor sizes: " + list(in.sizes));
      extent = target;
      stride = 0;
    }
    view->sizes[static_cast<size_t>(i)] = extent;
    view->strides[static_cast<size_t>(i)] = stride;
  }
  return view;
}
