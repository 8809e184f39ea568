// aoti_torch_cpu_masked_select: x[mask] / Tensor.masked_select (gathering the valid tokens of a
// padded batch; a data-dependent size, so AOTInductor calls this op). self and the bool mask
// broadcast to one shape; the result is a new 1-d tensor of self's dtype holding, in row-major order
// of that shape, the elements where the mask is true.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_masked_select(AtenTensorHandle self, AtenTensorHandle mask,
                                                                        AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& x = cpu_tensor(self, "self");
    const Tensor& m = cpu_tensor(mask, "mask");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(m.dtype == kBool || m.dtype == kUInt8, "masked_select: expected BoolTensor for mask");
    // The broadcast shape, and each operand's strides into it (0 along broadcast dims).
    const size_t rank = std::max(x.sizes.size(), m.sizes.size());
    std::vector<int64_t> sizes(rank, 1), xs(rank, 0), ms(rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t xd = d + x.sizes.size() >= rank ? x.sizes[d + x.sizes.size() - rank] : 1;
      const int64_t md = d + m.sizes.size() >= rank ? m.sizes[d + m.sizes.size() - rank] : 1;
      SHIMGEN_REQUIRE(xd == md || xd == 1 || md == 1, "masked_select: self " + shape_str(x.sizes) + " and mask " +
                                                          shape_str(m.sizes) + " do not broadcast");
      sizes[d] = xd == 1 ? md : xd;
      if (xd != 1) xs[d] = x.strides[d + x.sizes.size() - rank];
      if (md != 1) ms[d] = m.strides[d + m.sizes.size() - rank];
    }
    Tensor xv = x, mv = m;  // views with the broadcast sizes and strides (same storage)
    xv.sizes = sizes;
    xv.strides = xs;
    mv.sizes = sizes;
    mv.strides = ms;
    std::vector<int64_t> picked;
    const auto* flags = reinterpret_cast<const uint8_t*>(m.data());
    const int64_t last = rank == 0 ? -1 : static_cast<int64_t>(rank) - 1;
    const int64_t n = rank == 0 ? 1 : sizes[rank - 1];
    const int64_t sx = rank == 0 ? 0 : xs[rank - 1], sm = rank == 0 ? 0 : ms[rank - 1];
    const std::vector<int64_t>* strides[2] = {&xv.strides, &mv.strides};
    for_each_line(sizes, last, strides, [&](const int64_t* base) {
      for (int64_t i = 0; i < n; ++i)
        if (flags[base[1] + i * sm] != 0) picked.push_back(base[0] + i * sx);
    });
    const int64_t count = static_cast<int64_t>(picked.size());
    auto out = empty_tensor({count}, {1}, x.dtype, kCPU, -1);
    const int64_t item = static_cast<int64_t>(x.itemsize());
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(out->data() + i * item, x.data() + picked[static_cast<size_t>(i)] * item, static_cast<size_t>(item));
    *ret0 = wrap(std::move(out));
  });
}
