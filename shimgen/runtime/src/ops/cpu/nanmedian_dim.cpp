// aten::nanmedian.dim (no C shim: served by the proxy executor): torch.nanmedian(x, dim) (robust
// statistics over padded or masked data). Per line along dim, the lower median of the values that
// are not NaN (the ((n - 1) / 2)-th smallest, ties in index order) and its index; a line of NaN only
// gives NaN and index 0 (torch's index there depends on its selection algorithm). values (self's
// dtype) and int64 indices, new and contiguous, dim kept as size 1 when keepdim. float dtypes.
#include <algorithm>
#include <limits>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_nanmedian_dim(AtenTensorHandle self, int64_t dim, bool keepdim, AtenTensorHandle* values,
                       AtenTensorHandle* indices) {
  const Tensor& in = cpu_tensor(self, "self");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  const int64_t d = wrap_dim(dim, rank, "dim");
  const bool scalar = rank == 0;
  const int64_t n = scalar ? 1 : in.sizes[static_cast<size_t>(d)];
  SHIMGEN_REQUIRE(n > 0, "nanmedian(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < rank; ++k)
    if (k != d) sizes.push_back(in.sizes[static_cast<size_t>(k)]);
    else if (keepdim) sizes.push_back(1);
  auto v = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
  auto ix = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
  std::vector<int64_t> line_sizes = in.sizes;  // the output walk: self's shape with dim of size 1
  if (!scalar) line_sizes[static_cast<size_t>(d)] = 1;
  const std::vector<int64_t> out_strides = contiguous_strides_of(line_sizes);
  const std::vector<int64_t>* strides[2] = {&in.strides, &out_strides};
  dispatch_floating(in.dtype, "nanmedian", [&](auto t) {
    using T = decltype(t);
    const auto* src = reinterpret_cast<const T*>(in.data());
    auto* vo = reinterpret_cast<T*>(v->data());
    auto* io = reinterpret_cast<int64_t*>(ix->data());
    const int64_t step = scalar ? 0 : in.strides[static_cast<size_t>(d)];
    std::vector<int64_t> picked;
    for_each_line(scalar ? std::vector<int64_t>{} : in.sizes, scalar ? -1 : d, strides, [&](const int64_t* base) {
      picked.clear();
      for (int64_t i = 0; i < n; ++i)
        if (!std::isnan(static_cast<double>(value_of(src[base[0] + i * step])))) picked.push_back(i);
      const int64_t o = base[1];
      if (picked.empty()) {
        vo[o] = T(std::numeric_limits<float>::quiet_NaN());
        io[o] = 0;
        return;
      }
      std::stable_sort(picked.begin(), picked.end(), [&](int64_t a, int64_t b) {
        return value_of(src[base[0] + a * step]) < value_of(src[base[0] + b * step]);
      });
      const int64_t k = picked[static_cast<size_t>((picked.size() - 1) / 2)];
      vo[o] = src[base[0] + k * step];
      io[o] = k;
    });
  });
  *values = wrap(std::move(v));
  *indices = wrap(std::move(ix));
}

}  // namespace shimgen::rt::proxy_ops
