// aoti_torch_cpu_sort_stable: torch.sort (sampling's top-p, MoE token grouping). Values and int64
// indices in new tensors with torch's strides (self's when non-overlapping and dense, else dense
// strides in self's order); a stable sort (equal keys keep their order, whatever `stable` says:
// torch may do the same), NaN treated as the largest value.
#include <algorithm>
#include <numeric>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void sort_lines(const Tensor& in, Tensor& values, Tensor& indices, int64_t dim, bool descending) {
  const bool scalar = in.sizes.empty();
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t s_in = scalar ? 0 : in.strides[dim], s_v = scalar ? 0 : values.strides[dim];
  const int64_t s_i = scalar ? 0 : indices.strides[dim];
  const auto* src = reinterpret_cast<const T*>(in.data());
  auto* v_out = reinterpret_cast<T*>(values.data());
  auto* i_out = reinterpret_cast<int64_t*>(indices.data());
  std::vector<int64_t> order(static_cast<size_t>(n));
  const std::vector<int64_t>* strides[3] = {&in.strides, &values.strides, &indices.strides};
  for_each_line(in.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    const T* line = src + base[0];
    std::iota(order.begin(), order.end(), int64_t{0});
    auto key = [&](int64_t i) { return value_of(line[i * s_in]); };
    if (descending)
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return nan_first_greater(key(a), key(b)); });
    else
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return nan_last_less(key(a), key(b)); });
    for (int64_t j = 0; j < n; ++j) {
      v_out[base[1] + j * s_v] = line[order[j] * s_in];
      i_out[base[2] + j * s_i] = order[j];
    }
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_sort_stable(AtenTensorHandle self, int32_t* stable,
                                                                      int64_t dim, int32_t descending,
                                                                      AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  (void)stable;  // a stable sort satisfies both answers
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const std::vector<int64_t> strides = in.is_non_overlapping_and_dense() ? in.strides
                                                                           : dense_strides_like(in.sizes, in.strides);
    auto values = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
    auto indices = empty_tensor(in.sizes, strides, kInt64, kCPU, -1);
    dispatch_real(in.dtype, "sort", [&](auto type) { sort_lines<decltype(type)>(in, *values, *indices, d, descending != 0); });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
