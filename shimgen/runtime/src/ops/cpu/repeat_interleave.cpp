// aoti_torch_cpu_repeat_interleave_Tensor: torch.repeat_interleave(repeats) (MoE dispatch and
// variable-length batching build their row -> segment maps this way). repeats: 1-d non-negative
// int32/int64; the result (repeats' dtype, contiguous) holds i repeats[i] times, in order. An
// output_size, when given, must equal the sum (torch checks it too).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_repeat_interleave_Tensor(AtenTensorHandle repeats,
                                                                                   int64_t* output_size,
                                                                                   AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& r = cpu_tensor(repeats, "repeats");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(r.sizes.size() == 1, "repeat_interleave only accept 1D vector as repeat");
    SHIMGEN_REQUIRE(r.dtype == kInt64 || r.dtype == kInt32, "repeats has to be Long or Int tensor");
    const int64_t n = r.sizes[0];
    std::vector<int64_t> counts(static_cast<size_t>(n));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = i * r.strides[0];
      const int64_t c = r.dtype == kInt64 ? reinterpret_cast<const int64_t*>(r.data())[at]
                                          : reinterpret_cast<const int32_t*>(r.data())[at];
      SHIMGEN_REQUIRE(c >= 0, "repeats can not be negative");
      counts[static_cast<size_t>(i)] = c;
      total = checked_add(total, c, "repeat_interleave size");
    }
    SHIMGEN_REQUIRE(output_size == nullptr || *output_size == total,
                    "allocated size does not match required size (" + std::to_string(total) + ")");
    auto out = empty_tensor({total}, {1}, r.dtype, kCPU, -1);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < counts[static_cast<size_t>(i)]; ++j, ++k) {
        if (r.dtype == kInt64) reinterpret_cast<int64_t*>(out->data())[k] = i;
        else reinterpret_cast<int32_t*>(out->data())[k] = static_cast<int32_t>(i);
      }
    *ret0 = wrap(std::move(out));
  });
}
