// aoti_torch_cpu_nonzero_static: torch.nonzero_static(self, size=, fill_value=) (nonzero with a fixed
// output size, for exportable and compiled code). A new contiguous int64 [size, rank]: the coordinates
// of the first `size` non-zero elements (NaN counts as non-zero) in row-major order, the rows after
// the last one found filled with fill_value.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_nonzero_static(AtenTensorHandle self, int64_t size,
                                                                         int64_t fill_value, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(size >= 0, "nonzero_static: 'size' must be an non-negative integer, got " + std::to_string(size));
    const int64_t rank = static_cast<int64_t>(in.sizes.size());
    std::vector<uint8_t> hit;
    hit.reserve(static_cast<size_t>(in.numel()));
    dispatch_real(in.dtype, "nonzero_static", [&](auto t) {
      const auto* src = reinterpret_cast<const decltype(t)*>(in.data());
      for_each_element(in, [&](int64_t at) { hit.push_back(value_of(src[at]) != 0); });
    });
    const std::vector<int64_t> sizes{size, rank};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
    auto* dst = reinterpret_cast<int64_t*>(out->data());
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    int64_t row = 0;
    for (size_t k = 0; k < hit.size() && row < size; ++k) {
      if (hit[k]) {
        for (int64_t d = 0; d < rank; ++d) dst[row * rank + d] = index[static_cast<size_t>(d)];
        ++row;
      }
      for (int64_t d = rank; d-- > 0;) {  // row-major successor
        if (++index[static_cast<size_t>(d)] < in.sizes[static_cast<size_t>(d)]) break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
    for (int64_t i = row * rank; i < size * rank; ++i) dst[i] = fill_value;
    *ret0 = wrap(std::move(out));
  });
}
