// aoti_torch_cpu__weight_int8pack_mm: int8 weight-only linear (what int8-quantised CPU models run:
// torchao's int8 weight-only scheme, gpt-fast's int8 path). self [M, K] float32, bfloat16 or float16;
// mat2 int8 [N, K] (one row per output feature); scales [N] of self's dtype. A new contiguous [M, N]
// of self's dtype: out[m, n] = (sum_k self[m, k] * mat2[n, k]) * scales[n], summed in float32 (double
// for float32 self) and rounded once. Any strides.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__weight_int8pack_mm(AtenTensorHandle self,
                                                                              AtenTensorHandle mat2,
                                                                              AtenTensorHandle scales,
                                                                              AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& w = cpu_tensor(mat2, "mat2");
    const Tensor& s = cpu_tensor(scales, "scales");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(a.dtype == kFloat32 || a.dtype == kBFloat16 || a.dtype == kFloat16,
                    "_weight_int8pack_mm: expect A to be either 32-bit or 16-bit float tensor.");
    SHIMGEN_REQUIRE(a.sizes.size() == 2, "_weight_int8pack_mm: expect A to be 2D tensor.");
    SHIMGEN_REQUIRE(w.dtype == kInt8, "_weight_int8pack_mm: expect B to be int8 tensor.");
    SHIMGEN_REQUIRE(w.sizes.size() == 2 && w.sizes[1] == a.sizes[1],
                    "_weight_int8pack_mm: expect B.size(1) == " + std::to_string(a.sizes[1]) + ", got " +
                        shape_str(w.sizes));
    const int64_t M = a.sizes[0], K = a.sizes[1], N = w.sizes[0];
    SHIMGEN_REQUIRE(s.sizes.size() == 1 && s.sizes[0] == N,
                    "_weight_int8pack_mm: expect scales to be 1d tensor with size " + std::to_string(N));
    SHIMGEN_REQUIRE(s.dtype == a.dtype, "_weight_int8pack_mm: expected scales of A's dtype (code " +
                                            std::to_string(a.dtype) + "), got code " + std::to_string(s.dtype));
    const std::vector<int64_t> sizes{M, N};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    const auto* q = reinterpret_cast<const int8_t*>(w.data());
    dispatch_floating(a.dtype, "_weight_int8pack_mm", [&](auto t) {
      using T = decltype(t);
      using A = std::conditional_t<std::is_same_v<T, float>, double, float>;
      const auto* x = reinterpret_cast<const T*>(a.data());
      const auto* sc = reinterpret_cast<const T*>(s.data());
      auto* dst = reinterpret_cast<T*>(out->data());
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          A acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<A>(value_of(x[m * a.strides[0] + k * a.strides[1]])) *
                   static_cast<A>(q[n * w.strides[0] + k * w.strides[1]]);
          const A v = acc * static_cast<A>(value_of(sc[n * s.strides[0]]));
          if constexpr (std::is_same_v<T, float>) dst[m * N + n] = static_cast<float>(v);
          else dst[m * N + n] = T(static_cast<float>(v));
        }
    });
    *ret0 = wrap(std::move(out));
  });
}
