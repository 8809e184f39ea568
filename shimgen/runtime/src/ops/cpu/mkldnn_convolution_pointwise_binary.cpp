// aoti_torch_cpu_mkldnn__convolution_pointwise_binary and its in-place form (..._binary_):
// torch.ops.mkldnn._convolution_pointwise.binary / _convolution_pointwise_.binary, the convolution
// whose result is combined with another tensor and then passed through an optional unary post-op:
// unary(conv(X, W) + B  binary_attr  other), what inductor emits for a ResNet block's residual
// `relu(conv(x) + identity)` with freezing=True. other has the output's sizes (any strides).
// Out of place: a new tensor, channels-last when X is, X's dtype. In place: the result is written
// into other and ret0 is a new handle onto other. float32 inside, rounded once (mkldnn_fused.h).
// alpha must be null or 1 (inductor fuses only alpha 1; the fused op has no other use for it).
#include "mkldnn_fused.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

void convolution_binary(const char* op, bool in_place, AtenTensorHandle X, AtenTensorHandle other, AtenTensorHandle W,
                        AtenTensorHandle* B, const int64_t* padding, int64_t padding_len, const int64_t* stride,
                        int64_t stride_len, const int64_t* dilation, int64_t dilation_len, int64_t groups,
                        const char* binary_attr, double* alpha, const char** unary_attr, const double** unary_scalars,
                        int64_t unary_scalars_len, const char** unary_algorithm, AtenTensorHandle* ret0) {
  require_out(ret0, "ret0");
  const fused::Operands in = fused::operands(op, X, W, B, other);
  const Tensor &x = in.x, &w = in.w, &o = *in.other;
  const Tensor* b = in.b;
  const fused::Binary binary = fused::parse_binary(op, binary_attr);
  SHIMGEN_REQUIRE(
      alpha == nullptr || *alpha == 1.0,
      std::string(op) + ": alpha " + (alpha ? std::to_string(*alpha) : std::string()) + " is not supported (only 1)");
  const fused::Unary unary = fused::parse_unary(op, unary_attr == nullptr ? nullptr : *unary_attr, unary_scalars,
                                                unary_scalars_len, unary_algorithm);
  auto acc = fused::convolve_float(op, x, w, b, padding, padding_len, nullptr, 0, stride, stride_len, dilation,
                                   dilation_len, groups, false);
  SHIMGEN_REQUIRE(o.sizes == acc->sizes, std::string(op) + ": other " + shape_str(o.sizes) +
                                             " must have the output's sizes " + shape_str(acc->sizes));
  if (!in_place) {
    *ret0 = wrap(fused::epilogue(std::move(acc), &o, binary, unary, x.dtype));
    return;
  }
  // acc is the runtime's own: other is read into it before anything is written to other.
  (void)fused::epilogue(std::move(acc), &o, binary, unary, o.dtype, &o);
  *ret0 = wrap(std::make_unique<Tensor>(Tensor{o.storage, o.sizes, o.strides, o.storage_offset, o.dtype}));
}

}  // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise_binary(
    AtenTensorHandle X, AtenTensorHandle other, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding,
    int64_t padding_len_, const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, const char* binary_attr, double* alpha, const char** unary_attr, const double** unary_scalars,
    int64_t unary_scalars_len_, const char** unary_algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    convolution_binary("_convolution_pointwise.binary", false, X, other, W, B, padding, padding_len_, stride,
                       stride_len_, dilation, dilation_len_, groups, binary_attr, alpha, unary_attr, unary_scalars,
                       unary_scalars_len_, unary_algorithm, ret0);
  });
}

AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise_binary_(
    AtenTensorHandle other, AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding,
    int64_t padding_len_, const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, const char* binary_attr, double* alpha, const char** unary_attr, const double** unary_scalars,
    int64_t unary_scalars_len_, const char** unary_algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    convolution_binary("_convolution_pointwise_.binary", true, X, other, W, B, padding, padding_len_, stride,
                       stride_len_, dilation, dilation_len_, groups, binary_attr, alpha, unary_attr, unary_scalars,
                       unary_scalars_len_, unary_algorithm, ret0);
  });
}

}  // extern "C"
