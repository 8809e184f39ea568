// aten::embedding_renorm (no C shim: served by the proxy executor): the functional form of
// torch.embedding_renorm_, which F.embedding(input, weight, max_norm=...) runs on the weight before
// the lookup (torch.export turns the in-place call into this one). A new copy of self
// (2-D [rows, dim], a float dtype) in which every row that indices name (once, however often it is
// named) whose norm_type-norm is above max_norm is scaled by max_norm / (norm + 1e-7); other rows
// are copied unchanged. The copy keeps self's layout as torch's clone does (dense strides in self's
// order: a transposed weight stays transposed; the compiled model checks the strides). The norm is summed in double: p
// = inf takes the largest |x|, p = 0 counts the nonzero elements, p = 1 and 2 are sums of |x| and x^2 (torch.norm's
// conventions). The scale is rounded to self's dtype and multiplies each element in float (double for float64), as
// torch's row.mul_(scale) does. Indices int64 or int32, any shape and strides, each in [0, rows). A CUDA self takes
// torch's CUDA kernel's norm (renorm_kernel in ATen's cuda/Embedding.cu), which differs from the CPU's beyond p = 1 and
// 2: it sums pow(x, p) without |x| in float (double for float64) and takes pow(sum, 1/p), so a row with negative
// entries and p = 3 gets a smaller norm, or NaN (never renormed); p = 0 sums pow(x, 0) = 1 per element; and it walks
// stride(0) elements of each row (the clone's layout: a transposed weight has one). Measured on the H200: ring
// op_shapes_4's F.embedding(max_norm=1.5, norm_type=3) was 4.51 off eager CUDA with the CPU rule.
#include <algorithm>
#include <set>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

double row_norm(const std::vector<double>& row, double p) {
  double acc = 0.0;
  for (double v : row) {
    const double a = std::abs(v);
    if (p == 0.0) acc += a != 0.0 ? 1.0 : 0.0;
    else if (std::isinf(p)) acc = std::max(acc, a);
    else if (p == 1.0) acc += a;
    else if (p == 2.0) acc += a * a;
    else acc += std::pow(a, p);
  }
  if (p == 2.0) return std::sqrt(acc);
  if (p == 0.0 || p == 1.0 || std::isinf(p)) return acc;
  return std::pow(acc, 1.0 / p);
}

// torch's CUDA renorm_kernel: C is its accumulate type (float, double for float64).
template <typename C> double cuda_kernel_row_norm(const std::vector<double>& row, double p) {
  const C q = static_cast<C>(p);
  C acc = 0;
  for (double d : row) {
    const C x = static_cast<C>(d);
    if (q == C(1)) acc += std::abs(x);
    else if (q == C(2)) acc += x * x;
    else acc += std::pow(x, q);
  }
  return static_cast<double>(std::pow(acc, static_cast<C>(1.0 / q)));
}

}  // namespace

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_embedding_renorm(AtenTensorHandle self, AtenTensorHandle indices, double max_norm,
                                      double norm_type, RenormRule rule) {
  const Tensor& w = cpu_tensor(self, "self");
  const Tensor& idx = cpu_tensor(indices, "indices");
  SHIMGEN_REQUIRE(w.sizes.size() == 2, "embedding_renorm: self must be 2-D, got " + shape_str(w.sizes));
  SHIMGEN_REQUIRE(idx.dtype == kInt64 || idx.dtype == kInt32,
                  "embedding_renorm: Expected tensor for argument #2 'indices' to have one of the following scalar "
                  "types: Long, Int; but got dtype code " +
                      std::to_string(idx.dtype));
  SHIMGEN_REQUIRE(norm_type >= 0.0, "embedding_renorm: norm_type must be non-negative");
  dispatch_floating(w.dtype, "embedding_renorm", [&](auto) {});  // a dtype refused before anything is made
  const int64_t rows = w.sizes[0], dim = w.sizes[1];
  std::set<int64_t> named;  // each row once, in ascending order (torch sorts and dedups the indices)
  for_each_element(idx, [&](int64_t at) {
    const int64_t i = idx.dtype == kInt64 ? reinterpret_cast<const int64_t*>(idx.data())[at]
                                          : reinterpret_cast<const int32_t*>(idx.data())[at];
    SHIMGEN_REQUIRE(i >= 0 && i < rows, "embedding_renorm: index " + std::to_string(i) +
                                            " is out of bounds for dimension 0 with size " + std::to_string(rows));
    named.insert(i);
  });
  auto out = empty_tensor(w.sizes, dense_strides_like(w.sizes, w.strides), w.dtype, kCPU, -1);
  const int64_t o0 = out->strides[0], o1 = out->strides[1];
  dispatch_floating(w.dtype, "embedding_renorm", [&](auto t) {
    using T = decltype(t);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;  // what the multiply runs in
    const auto* src = reinterpret_cast<const T*>(w.data());
    auto* dst = reinterpret_cast<T*>(out->data());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < dim; ++c) dst[r * o0 + c * o1] = src[r * w.strides[0] + c * w.strides[1]];
    const bool cuda_rule = rule == RenormRule::kCudaKernel;
    const int64_t walked = cuda_rule ? std::min(dim, o0) : dim;  // the CUDA kernel walks stride(0) elements
    std::vector<double> row(static_cast<size_t>(walked));
    for (int64_t r : named) {
      T* line = dst + r * o0;
      for (int64_t c = 0; c < walked; ++c) row[static_cast<size_t>(c)] = static_cast<double>(value_of(line[c * o1]));
      const double norm = cuda_rule ? cuda_kernel_row_norm<C>(row, norm_type) : row_norm(row, norm_type);
      // The CUDA kernel compares in its accumulate type and divides max_norm rounded to it.
      const double limit = cuda_rule ? static_cast<double>(static_cast<C>(max_norm)) : max_norm;
      if (!(norm > limit)) continue;
      const C scale = static_cast<C>(limit / (norm + 1e-7));
      for (int64_t c = 0; c < walked; ++c) {
        const C v = static_cast<C>(value_of(line[c * o1])) * scale;
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) line[c * o1] = v;
        else line[c * o1] = T(static_cast<float>(v));
      }
    }
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
