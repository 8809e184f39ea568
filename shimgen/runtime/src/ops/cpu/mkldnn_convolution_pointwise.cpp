// aoti_torch_cpu_mkldnn__convolution_pointwise: torch.ops.mkldnn._convolution_pointwise, the
// convolution (+ bias) with a fused unary post-op that inductor emits for a model compiled with
// freezing=True (Conv-BN folded, then conv + relu / silu / ...). X [N, C, *spatial] (1-3 spatial
// dims), W [O, C / groups, *k] (a prepacked weight arrives unpacked: tensor.cpp): unary(conv(X, W)
// + B), channels-last when X is (the strides the generated code was compiled for), X's dtype.
// Computed by the runtime's convolution in float32, the post-op before the one rounding.
#include "mkldnn_fused.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu_mkldnn__convolution_pointwise(
    AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding, int64_t padding_len_,
    const int64_t* stride, int64_t stride_len_, const int64_t* dilation, int64_t dilation_len_, int64_t groups,
    const char* attr, const double** scalars, int64_t scalars_len_, const char** algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "_convolution_pointwise";
    require_out(ret0, "ret0");
    const fused::Operands in = fused::operands(op, X, W, B);
    const Tensor &x = in.x, &w = in.w;
    const Tensor* b = in.b;
    const fused::Unary unary = fused::parse_unary(op, attr, scalars, scalars_len_, algorithm);
    auto acc = fused::convolve_float(op, x, w, b, padding, padding_len_, nullptr, 0, stride, stride_len_, dilation,
                                     dilation_len_, groups, false);
    *ret0 = wrap(fused::epilogue(std::move(acc), nullptr, fused::Binary::kAdd, unary, x.dtype));
  });
}

}  // extern "C"
