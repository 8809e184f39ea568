// aten::conv_tbc (fairseq's ConvTBC: a 1-d convolution over time-major activations; no C shim, so
// inductor hands it to the proxy executor). self [T, B, C], weight [K, C, O], bias [O], pad: out[t, b,
// o] = bias[o] + sum over k, c of self[t - pad + k, b, c] * weight[k, c, o], a new contiguous
// [T + 2 pad - K + 1, B, O]. Computed as the runtime's convolution of self viewed [B, C, T] with
// weight viewed [O, C, K] (no copies in), its [B, O, T'] result copied into torch's layout. torch's
// checks and messages (ConvolutionTBC.cpp).
#include <memory>
#include <string>
#include <vector>

#include "../proxy_ops.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// A handle to a view of t with its dims in `order` (t's storage shared), dim 0 of t narrowed to
// [start, start + length) (length -1: all of it).
AtenTensorHandle permuted(const Tensor& t, const int64_t (&order)[3], int64_t start = 0, int64_t length = -1) {
  auto view = std::make_unique<Tensor>(Tensor{
      t.storage, {}, {}, checked_add(t.storage_offset, checked_mul(start, t.strides[0], "offset"), "offset"), t.dtype});
  for (int64_t d : order) {
    view->sizes.push_back(d == 0 && length >= 0 ? length : t.sizes[static_cast<size_t>(d)]);
    view->strides.push_back(t.strides[static_cast<size_t>(d)]);
  }
  return wrap(std::move(view));
}

struct Freed {  // a handle freed at scope exit
  AtenTensorHandle h = nullptr;
  ~Freed() {
    if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
  }
};

void check_call(AOTITorchError code, const char* what) {
  if (code != AOTI_TORCH_SUCCESS) fail(code, std::string("conv_tbc: ") + what + ": " + shimgen_runtime_last_error());
}

}  // namespace

AtenTensorHandle cpu_conv_tbc(AtenTensorHandle self, AtenTensorHandle weight, AtenTensorHandle bias, int64_t pad) {
  const Tensor& x = cpu_tensor(self, "self");
  const Tensor& w = cpu_tensor(weight, "weight");
  const Tensor& b = cpu_tensor(bias, "bias");
  SHIMGEN_REQUIRE(x.sizes.size() == 3, "Input must have 3 dims: time, batch, in_channel");
  SHIMGEN_REQUIRE(w.sizes.size() == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  SHIMGEN_REQUIRE(b.sizes.size() == 1, "Bias must be 1-D");
  SHIMGEN_REQUIRE(x.sizes[2] == w.sizes[1], "Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  SHIMGEN_REQUIRE(w.sizes[2] == b.sizes[0], "Bias size must equal dim 2 in the weight tensor (output channels).");
  const int64_t length =
      checked_add(checked_add(x.sizes[0], checked_mul(2, pad, "pad"), "pad") - w.sizes[0], 1, "length");
  const std::vector<int64_t> sizes{length, x.sizes[1], w.sizes[2]};
  SHIMGEN_REQUIRE(length >= 0, "Trying to create tensor with negative dimension " + std::to_string(length) + ": " +
                                   shape_str(sizes));
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), x.dtype, kCPU, -1);
  if (out->numel() > 0) {
    // A negative pad crops |pad| steps off each end of the time axis (torch's loop reads only
    // self[t - pad + k] inside self): the convolution of the cropped view with no padding.
    const int64_t crop = pad < 0 ? -pad : 0, padding = pad < 0 ? 0 : pad;
    Freed input{permuted(x, {1, 2, 0}, crop, x.sizes[0] - 2 * crop)}, kernel{permuted(w, {2, 1, 0})}, conv;
    AtenTensorHandle bias_handle = bias;
    const int64_t one = 1;
    check_call(aoti_torch_cpu_convolution(input.h, kernel.h, &bias_handle, &one, 1, &padding, 1, &one, 1, 0, nullptr, 0,
                                          1, &conv.h),
               "convolution");
    Freed dst{permuted(*out, {1, 2, 0})};  // out viewed [B, O, T']: the convolution's order
    check_call(aoti_torch_copy_(dst.h, conv.h, 0), "copy_");
  }
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
