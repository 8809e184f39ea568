// aoti_torch_cpu_masked_scatter: self.masked_scatter(mask, source) (vision-language models write image
// features into the text embeddings at the image tokens this way). A new contiguous tensor of the
// broadcast shape of self and mask: self's values, except that the k-th position (row-major) where
// mask is true takes the k-th element of source (flattened, row-major). source must hold at least as
// many elements as mask has true positions, and self's dtype.
#include "cpu_op.h"
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_masked_scatter(AtenTensorHandle self, AtenTensorHandle mask,
                                                                         AtenTensorHandle source,
                                                                         AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& s = cpu_tensor(self, "self");
    const Tensor& m = cpu_tensor(mask, "mask");
    const Tensor& src = cpu_tensor(source, "source");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(m.dtype == kBool || m.dtype == kUInt8, "masked_scatter_: expected BoolTensor for mask");
    SHIMGEN_REQUIRE(src.dtype == s.dtype,
                    "masked_scatter_: expected self and source to have same dtypes but got "
                    "codes " +
                        std::to_string(s.dtype) + " and " + std::to_string(src.dtype));
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(s.sizes, m.sizes);
    const std::vector<int64_t> ss = elementwise::broadcast_strides(s, sizes),
                               sm = elementwise::broadcast_strides(m, sizes);
    int64_t needed = 0;
    const auto* mk = reinterpret_cast<const uint8_t*>(m.data());
    {
      const std::vector<int64_t>* strides[1] = {&sm};
      elementwise::for_each(sizes, strides, [&](const int64_t* at) { needed += mk[at[0]] != 0; });
    }
    SHIMGEN_REQUIRE(needed <= src.numel(), "masked_scatter: Number of elements of source < number of ones in mask");
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), s.dtype, kCPU, -1);
    const Tensor& o = *out;
    std::vector<int64_t> from;  // source's element offsets in row-major order, as many as needed
    from.reserve(static_cast<size_t>(needed));
    for_each_element(src, [&](int64_t at) {
      if (static_cast<int64_t>(from.size()) < needed) from.push_back(at);
    });
    const size_t item = o.itemsize();
    const char* sp = s.data();
    const char* rp = src.data();
    char* op = o.data();
    size_t k = 0;
    const std::vector<int64_t>* strides[3] = {&o.strides, &ss, &sm};
    elementwise::for_each(sizes, strides, [&](const int64_t* at) {
      const char* pick =
          mk[at[2]] != 0 ? rp + static_cast<size_t>(from[k++]) * item : sp + static_cast<size_t>(at[1]) * item;
      std::memcpy(op + static_cast<size_t>(at[0]) * item, pick, item);
    });
    *ret0 = wrap(std::move(out));
  });
}
