// aoti_torch_cpu_cumsum: what every decoder LLM on the CPU imports (position ids from the attention
// mask). Like torch: a new contiguous tensor; integer and bool inputs sum to int64 unless dtype is
// given; the running sum is kept in torch's CPU accumulation type (double for float32).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class In, class Out> void cumsum_lines(const Tensor& in, Tensor& out, int64_t dim) {
  using Sum = acc_t<Out>;  // torch converts self to the result dtype first, then scans in its acc type
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  const int64_t n = rank == 0 ? 1 : in.sizes[dim];
  const int64_t in_step = rank == 0 ? 0 : in.strides[dim];
  const int64_t out_step = rank == 0 ? 0 : out.strides[dim];
  const auto* src = reinterpret_cast<const In*>(in.data());
  auto* dst = reinterpret_cast<Out*>(out.data());
  const std::vector<int64_t>* strides[2] = {&in.strides, &out.strides};
  for_each_line(in.sizes, rank == 0 ? -1 : dim, strides, [&](const int64_t* base) {
    Sum sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      sum += static_cast<Sum>(value_of(static_cast<Out>(value_of(src[base[0] + i * in_step]))));
      dst[base[1] + i * out_step] = static_cast<Out>(sum);
    }
  });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self, int64_t dim, int32_t* dtype,
                                                                 AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    const int64_t rank = static_cast<int64_t>(in.sizes.size());
    const int64_t d = wrap_dim(dim, rank, "dim");
    const int32_t out_dtype = dtype != nullptr ? *dtype : is_integral_dtype(in.dtype) ? kInt64 : in.dtype;
    auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), out_dtype, kCPU, -1);
    dispatch_real(in.dtype, "cumsum", [&](auto in_type) {
      dispatch_real(out_dtype, "cumsum",
                    [&](auto out_type) { cumsum_lines<decltype(in_type), decltype(out_type)>(in, *out, d); });
    });
    *ret0 = wrap(std::move(out));
  });
}
