// aoti_torch_cpu__int_mm_out: torch._int_mm into out (int8 matmuls of quantised models, e.g. dynamic
// int8 activation quantisation): out int32 [M, N] = self [M, K] @ mat2 int8 [K, N], self int8 or uint8
// as torch's CPU kernel takes it (torchao 0.18's int_scaled_matmul shifts the int8 activation by 128
// into uint8 on a CPU with AVX512-VNNI and no AMX, its u8s8 path), products summed exactly in int32
// (wrapping as torch's int32 accumulators do). Any strides.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__int_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                                      AtenTensorHandle mat2) {
  return guarded(__func__, [&] {
    const Tensor& o = cpu_tensor(out, "out");
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(mat2, "mat2");
    SHIMGEN_REQUIRE(a.sizes.size() == 2, "_int_mm: Expected self to be 2D, got " + shape_str(a.sizes));
    SHIMGEN_REQUIRE(b.sizes.size() == 2, "_int_mm: Expected mat2 to be 2D, got " + shape_str(b.sizes));
    SHIMGEN_REQUIRE(a.sizes[1] == b.sizes[0], "_int_mm: self.size(1) needs to match mat2.size(0), got " +
                                                  std::to_string(a.sizes[1]) + " and " + std::to_string(b.sizes[0]));
    SHIMGEN_REQUIRE(
        a.dtype == kInt8 || a.dtype == kUInt8,
        "int_mm_out_cpu: Expected self dtype to be int8 or uint8, got dtype code " + std::to_string(a.dtype));
    SHIMGEN_REQUIRE(b.dtype == kInt8, "int_mm_out_cpu: Expected mat2 dtype to be of type int8, got dtype code " +
                                          std::to_string(b.dtype));
    SHIMGEN_REQUIRE(o.dtype == kInt32, "_int_mm: Expected result dtype to be of type kInt");
    const int64_t M = a.sizes[0], K = a.sizes[1], N = b.sizes[1];
    SHIMGEN_REQUIRE(o.sizes == std::vector<int64_t>({M, N}),
                    "_int_mm: Expected result to be of size " + shape_str({M, N}) + ", got " + shape_str(o.sizes));
    const auto* y = reinterpret_cast<const int8_t*>(b.data());
    auto* dst = reinterpret_cast<int32_t*>(o.data());
    auto run = [&](const auto* x) {
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          uint32_t acc = 0;  // unsigned: wraps like int32 without undefined behaviour
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<uint32_t>(static_cast<int32_t>(x[m * a.strides[0] + k * a.strides[1]]) *
                                         static_cast<int32_t>(y[k * b.strides[0] + n * b.strides[1]]));
          dst[m * o.strides[0] + n * o.strides[1]] = static_cast<int32_t>(acc);
        }
    };
    if (a.dtype == kUInt8) run(reinterpret_cast<const uint8_t*>(a.data()));
    else run(reinterpret_cast<const int8_t*>(a.data()));
  });
}
