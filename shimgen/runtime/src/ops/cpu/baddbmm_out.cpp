// aoti_torch_cpu_baddbmm_out: out = beta * self + alpha * (batch1 @ batch2), batched (BLOOM's and
// MPT's ALiBi attention scores, WavLM's relative position bias). batch1 [B, n, k], batch2 [B, k, m],
// out [B, n, m] of any strides, self broadcast to out; beta == 0 never reads self (NaN in it stays
// out, as in torch). float32/float64 through the runtime's GEMM per batch; bfloat16/float16 computed
// in float32 and rounded once.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// self's strides broadcast to out's [B, n, m] (size-1 and missing leading dims get stride 0).
std::vector<int64_t> broadcast_strides(const Tensor& self, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 0);
  const size_t off = sizes.size() - self.sizes.size();
  for (size_t d = 0; d < self.sizes.size(); ++d) {
    SHIMGEN_REQUIRE(self.sizes[d] == sizes[off + d] || self.sizes[d] == 1,
                    "self " + shape_str(self.sizes) + " does not broadcast to " + shape_str(sizes));
    strides[off + d] = self.sizes[d] == 1 ? 0 : self.strides[d];
  }
  return strides;
}

template <class T>
void baddbmm(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, double beta, double alpha) {
  const int64_t B = out.sizes[0], n = out.sizes[1], m = out.sizes[2], k = a.sizes[2];
  const std::vector<int64_t> s = broadcast_strides(self, out.sizes);
  const auto* sp = reinterpret_cast<const T*>(self.data());
  const auto* ap = reinterpret_cast<const T*>(a.data());
  const auto* bp = reinterpret_cast<const T*>(b.data());
  auto* op = reinterpret_cast<T*>(out.data());
  for (int64_t i = 0; i < B; ++i) {
    const Matrix<T> c{op + i * out.strides[0], n, m, out.strides[1], out.strides[2]};
    for (int64_t r = 0; r < n; ++r)
      for (int64_t q = 0; q < m; ++q)
        c.at(r, q) = beta == 0.0 ? T(0) : static_cast<T>(beta) * sp[i * s[0] + r * s[1] + q * s[2]];
    if (k == 0) continue;
    gemm(Matrix<const T>{ap + i * a.strides[0], n, k, a.strides[1], a.strides[2]},
         Matrix<const T>{bp + i * b.strides[0], k, m, b.strides[1], b.strides[2]},
         Matrix<T>{c.data, n, m, c.row_stride, c.col_stride}, static_cast<T>(alpha), T(1));
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                      AtenTensorHandle batch1, AtenTensorHandle batch2,
                                                                      double beta, double alpha) {
  return guarded(__func__, [&] {
    const Tensor& o = cpu_tensor(out, "out");
    const Tensor& s = cpu_tensor(self, "self");
    const Tensor& a = cpu_tensor(batch1, "batch1");
    const Tensor& b = cpu_tensor(batch2, "batch2");
    SHIMGEN_REQUIRE(a.sizes.size() == 3 && b.sizes.size() == 3 && o.sizes.size() == 3,
                    "batch1, batch2 and out must be 3-d");
    SHIMGEN_REQUIRE(a.sizes[0] == b.sizes[0] && a.sizes[2] == b.sizes[1],
                    "batch1 " + shape_str(a.sizes) + " and batch2 " + shape_str(b.sizes) + " do not multiply");
    SHIMGEN_REQUIRE(o.sizes == std::vector<int64_t>({a.sizes[0], a.sizes[1], b.sizes[2]}),
                    "out " + shape_str(o.sizes) + " is not the product's shape");
    SHIMGEN_REQUIRE(s.sizes.size() <= 3, "self must have at most 3 dims");
    SHIMGEN_REQUIRE(a.dtype == b.dtype && a.dtype == o.dtype && s.dtype == o.dtype,
                    "self, batch1, batch2 and out must have one dtype");
    (void)broadcast_strides(s, o.sizes);  // checked before the first write
    if (o.numel() == 0) return;
    if (o.dtype == kFloat32) {
      baddbmm<float>(o, s, a, b, beta, alpha);
    } else if (o.dtype == kFloat64) {
      baddbmm<double>(o, s, a, b, beta, alpha);
    } else if (is_half_dtype(o.dtype)) {
      auto wide_out = empty_tensor(o.sizes, contiguous_strides_of(o.sizes), kFloat32, kCPU, -1);
      baddbmm<float>(*wide_out, *widened(s), *widened(a), *widened(b), beta, alpha);
      store_narrowed(*wide_out, o);
    } else {
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "baddbmm: dtype code " + std::to_string(o.dtype) + " is not supported");
    }
  });
}
