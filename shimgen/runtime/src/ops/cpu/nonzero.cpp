// aoti_torch_cpu_nonzero: torch.nonzero / argwhere / boolean-mask indexing (data-dependent shapes:
// AOTInductor sizes the result from this op's output). A new int64 [n, rank] of the coordinates of
// the non-zero elements in row-major order (NaN counts as non-zero), with torch's strides (1, n):
// the transpose of a contiguous [rank, n], which the generated code checks.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nonzero(AtenTensorHandle self, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int64_t rank = static_cast<int64_t>(in.sizes.size());
    std::vector<uint8_t> hit;
    hit.reserve(static_cast<size_t>(in.numel()));
    dispatch_real(in.dtype, "nonzero", [&](auto t) {
      const auto* src = reinterpret_cast<const decltype(t)*>(in.data());
      for_each_element(in, [&](int64_t at) { hit.push_back(value_of(src[at]) != 0); });
    });
    int64_t count = 0;
    for (uint8_t h : hit) count += h;
    const std::vector<int64_t> sizes{count, rank};
    auto out = empty_tensor(sizes, {1, count}, kInt64, kCPU, -1);
    auto* dst = reinterpret_cast<int64_t*>(out->data());
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    int64_t row = 0;
    for (uint8_t h : hit) {
      if (h) {
        for (int64_t d = 0; d < rank; ++d) dst[row + d * count] = index[static_cast<size_t>(d)];
        ++row;
      }
      for (int64_t d = rank; d-- > 0;) {  // row-major successor
        if (++index[static_cast<size_t>(d)] < in.sizes[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
    *ret0 = wrap(std::move(out));
  });
}
