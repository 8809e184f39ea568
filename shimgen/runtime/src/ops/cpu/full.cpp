// aten::full of a complex dtype (inductor fills real tensors itself and falls back for complex
// ones: torch.zeros(..., dtype=torch.cfloat), the FNO's spectrum of output modes before its corners
// are written). A new contiguous tensor of `size` filled with value + 0i; torch's check and message
// for a negative size.
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_complex_full(const std::vector<int64_t>& size, double value, int32_t dtype) {
  for (int64_t s : size) {
    if (s >= 0) continue;
    std::string shape = "[";
    for (size_t i = 0; i < size.size(); ++i) shape += (i ? ", " : "") + std::to_string(size[i]);
    fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
         "Trying to create tensor with negative dimension " + std::to_string(s) + ": " + shape + "]");
  }
  if (!elementwise::is_complex(dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("full: dtype ") + scalar_type_name(dtype) +
                                                " is not served (complex64/128; inductor fills real tensors itself)");
  auto out = empty_tensor(size, contiguous_strides_of(size), dtype, kCPU, -1);
  const std::vector<int64_t>* strides[1] = {&out->strides};
  const std::complex<double> fill(value, 0.0);
  elementwise::for_each(size, strides, [&](const int64_t* at) { elementwise::write_complex(*out, at[0], fill); });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
