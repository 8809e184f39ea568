// aoti_torch_cpu_cumprod: running product along dim (survival/stick-breaking weights, decayed
// masks). Like cumsum: a new contiguous tensor; integer and bool inputs multiply to int64 unless
// dtype is given; the running product is kept in torch's CPU accumulation type.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class In, class Out> void cumprod_lines(const Tensor& in, Tensor& out, int64_t dim) {
  using Acc = acc_t<Out>;
  const bool scalar = in.sizes.empty();
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t in_step = scalar ? 0 : in.strides[dim], out_step = scalar ? 0 : out.strides[dim];
  const auto* src = reinterpret_cast<const In*>(in.data());
  auto* dst = reinterpret_cast<Out*>(out.data());
  const std::vector<int64_t>* strides[2] = {&in.strides, &out.strides};
  for_each_line(in.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    Acc product = 1;
    for (int64_t i = 0; i < n; ++i) {
      product *= static_cast<Acc>(value_of(static_cast<Out>(value_of(src[base[0] + i * in_step]))));
      dst[base[1] + i * out_step] = static_cast<Out>(product);
    }
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cumprod(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                                  AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
    const int32_t out_dtype = dtype != nullptr ? *dtype : is_integral_dtype(in.dtype) ? kInt64 : in.dtype;
    auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), out_dtype, kCPU, -1);
    dispatch_real(in.dtype, "cumprod", [&](auto in_type) {
      dispatch_real(out_dtype, "cumprod",
                    [&](auto out_type) { cumprod_lines<decltype(in_type), decltype(out_type)>(in, *out, d); });
    });
    *ret0 = wrap(std::move(out));
  });
}
