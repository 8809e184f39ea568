// aten::split_with_sizes and aten::split.Tensor (served by the proxy executor, for CPU and CUDA
// tensors alike: inductor splits real tensors itself and hands complex ones to the proxy, as
// Qwen-Image's rotary table, torch.polar frequencies split per axis): views of self along dim, one
// per piece, sharing its storage (slice's offsets and strides). torch's checks and messages
// (TensorShape.cpp split / split_with_sizes).
#include <algorithm>
#include <string>

#include "../views.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// The size of self along dim (dim wrapped as torch's self.size(dim)), self at least 1-d.
int64_t split_dim_size(const Tensor& self, int64_t dim) {
  const int64_t rank = static_cast<int64_t>(self.sizes.size());
  SHIMGEN_REQUIRE(rank > 0, "split expects at least a 1-dimensional tensor");
  return self.sizes[static_cast<size_t>(wrap_dim(dim, rank, "dim"))];
}

}  // namespace

std::vector<std::unique_ptr<Tensor>> shimgen::rt::views::split_with_sizes(const Tensor& self,
                                                                          const std::vector<int64_t>& split_sizes,
                                                                          int64_t dim) {
  const int64_t dim_size = split_dim_size(self, dim);
  int64_t total = 0;
  for (int64_t length : split_sizes) {
    SHIMGEN_REQUIRE(length >= 0,
                    "split_with_sizes expects split_sizes have only non-negative entries, but got "
                    "split_sizes=" +
                        shape_str(split_sizes));
    total = checked_add(total, length, "split_with_sizes");
  }
  SHIMGEN_REQUIRE(total == dim_size, "split_with_sizes expects split_sizes to sum exactly to " +
                                         std::to_string(dim_size) + " (input tensor's size at dimension " +
                                         std::to_string(dim) + "), but got split_sizes=" + shape_str(split_sizes));
  std::vector<std::unique_ptr<Tensor>> pieces;
  int64_t start = 0;
  for (int64_t length : split_sizes) {
    const int64_t end = start + length;
    pieces.push_back(views::slice(self, dim, &start, &end, 1));
    start = end;
  }
  return pieces;
}

std::vector<std::unique_ptr<Tensor>> shimgen::rt::views::split(const Tensor& self, int64_t split_size, int64_t dim) {
  SHIMGEN_REQUIRE(!self.sizes.empty(), "split expects at least a 1-dimensional tensor");
  SHIMGEN_REQUIRE(split_size >= 0,
                  "split expects split_size be non-negative, but got split_size=" + std::to_string(split_size));
  const int64_t dim_size = split_dim_size(self, dim);
  SHIMGEN_REQUIRE(split_size > 0 || dim_size == 0,
                  "split_size can only be 0 if dimension size is 0, but got "
                  "dimension size of " +
                      std::to_string(dim_size));
  // One piece when split_size is 0 (an empty dim) or exceeds the dim; else ceil(dim_size / split_size),
  // the last one shorter.
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  std::vector<int64_t> sizes(static_cast<size_t>(count), split_size);
  sizes.back() = dim_size - split_size * (count - 1);
  return split_with_sizes(self, sizes, dim);
}
