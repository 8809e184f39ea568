// aoti_torch_cpu__linear_pointwise_binary: torch.ops.mkldnn._linear_pointwise.binary, a Linear whose
// result is combined with another tensor (a residual add: inductor's freezing=True fusion of
// `linear(x) + other`). X [..., K], other [..., N] (the output's sizes, any strides), W [N, K], B
// [N] or null, attr add / sub / mul / div: (X @ W^T + B) attr other, a new contiguous [..., N] of X's
// dtype; 16-bit dtypes in float32, rounded once (mkldnn_fused.h).
#include "mkldnn_fused.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__linear_pointwise_binary(AtenTensorHandle X, AtenTensorHandle other, AtenTensorHandle W,
                                                       AtenTensorHandle* B, const char* attr, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "_linear_pointwise.binary";
    require_out(ret0, "ret0");
    const fused::Operands in = fused::operands(op, X, W, B, other);
    const Tensor &x = in.x, &w = in.w, &o = *in.other;
    const Tensor* b = in.b;
    const fused::Binary binary = fused::parse_binary(op, attr);
    auto acc = fused::linear_float(op, x, w, b);
    SHIMGEN_REQUIRE(o.sizes == acc->sizes, std::string(op) + ": other " + shape_str(o.sizes) +
                                               " must have the output's sizes " + shape_str(acc->sizes));
    *ret0 = wrap(fused::epilogue(std::move(acc), &o, binary, fused::Unary{}, x.dtype));
  });
}

}  // extern "C"
