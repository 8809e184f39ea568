// aoti_torch_cpu_addbmm: out = beta * self + alpha * sum_b (batch1[b] @ batch2[b]) (reductions over
// a batch of products: summed attention heads, bilinear pooling). A new contiguous [n, m] tensor;
// self broadcast to it; beta == 0 never reads self. float32/float64 through the runtime's GEMM, one
// accumulating call per batch; bfloat16/float16 computed in float32 and rounded once.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void addbmm(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, double beta, double alpha) {
  const int64_t B = a.sizes[0], n = out.sizes[0], m = out.sizes[1], k = a.sizes[2];
  const size_t off = 2 - self.sizes.size();
  std::vector<int64_t> s(2, 0);
  for (size_t d = 0; d < self.sizes.size(); ++d) s[off + d] = self.sizes[d] == 1 ? 0 : self.strides[d];
  const auto* sp = reinterpret_cast<const T*>(self.data());
  const auto* ap = reinterpret_cast<const T*>(a.data());
  const auto* bp = reinterpret_cast<const T*>(b.data());
  const Matrix<T> c{reinterpret_cast<T*>(out.data()), n, m, out.strides[0], out.strides[1]};
  for (int64_t r = 0; r < n; ++r)
    for (int64_t q = 0; q < m; ++q) c.at(r, q) = beta == 0.0 ? T(0) : static_cast<T>(beta) * sp[r * s[0] + q * s[1]];
  if (k == 0) return;
  for (int64_t i = 0; i < B; ++i)
    gemm(Matrix<const T>{ap + i * a.strides[0], n, k, a.strides[1], a.strides[2]},
         Matrix<const T>{bp + i * b.strides[0], k, m, b.strides[1], b.strides[2]}, c, static_cast<T>(alpha), T(1));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_addbmm(AtenTensorHandle self, AtenTensorHandle batch1,
                                                                 AtenTensorHandle batch2, double beta, double alpha,
                                                                 AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& s = cpu_tensor(self, "self");
    const Tensor& a = cpu_tensor(batch1, "batch1");
    const Tensor& b = cpu_tensor(batch2, "batch2");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(a.sizes.size() == 3 && b.sizes.size() == 3, "batch1 and batch2 must be 3-d");
    SHIMGEN_REQUIRE(a.sizes[0] == b.sizes[0] && a.sizes[2] == b.sizes[1],
                    "batch1 " + shape_str(a.sizes) + " and batch2 " + shape_str(b.sizes) + " do not multiply");
    SHIMGEN_REQUIRE(a.dtype == b.dtype && s.dtype == a.dtype, "self, batch1 and batch2 must have one dtype");
    const std::vector<int64_t> sizes{a.sizes[1], b.sizes[2]};
    SHIMGEN_REQUIRE(s.sizes.size() <= 2, "self must have at most 2 dims");
    for (size_t d = 0; d < s.sizes.size(); ++d)
      SHIMGEN_REQUIRE(s.sizes[d] == 1 || s.sizes[d] == sizes[2 - s.sizes.size() + d],
                      "self " + shape_str(s.sizes) + " does not broadcast to " + shape_str(sizes));
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    if (out->numel() > 0) {
      if (a.dtype == kFloat32) {
        addbmm<float>(*out, s, a, b, beta, alpha);
      } else if (a.dtype == kFloat64) {
        addbmm<double>(*out, s, a, b, beta, alpha);
      } else if (is_half_dtype(a.dtype)) {
        auto wide = empty_tensor(sizes, contiguous_strides_of(sizes), kFloat32, kCPU, -1);
        addbmm<float>(*wide, *widened(s), *widened(a), *widened(b), beta, alpha);
        store_narrowed(*wide, *out);
      } else {
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "addbmm: dtype code " + std::to_string(a.dtype) + " is not supported");
      }
    }
    *ret0 = wrap(std::move(out));
  });
}
