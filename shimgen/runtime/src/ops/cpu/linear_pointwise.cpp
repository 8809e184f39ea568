// aoti_torch_cpu__linear_pointwise: torch.ops.mkldnn._linear_pointwise, the Linear (+ bias) with a
// fused unary post-op that inductor emits for a model compiled with freezing=True. X [..., K], W
// [N, K] (a prepacked weight arrives unpacked: tensor.cpp), B [N] or null: unary(X @ W^T + B), a
// new contiguous [..., N] of X's dtype. float32 through the runtime's GEMM; bfloat16/float16 in
// float32 with the post-op applied before the one rounding (mkldnn_fused.h).
#include "mkldnn_fused.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__linear_pointwise(AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B,
                                                const char* attr, const double** scalars, int64_t scalars_len_,
                                                const char** algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "_linear_pointwise";
    require_out(ret0, "ret0");
    const fused::Operands in = fused::operands(op, X, W, B);
    const Tensor &x = in.x, &w = in.w;
    const Tensor* b = in.b;
    const fused::Unary unary = fused::parse_unary(op, attr, scalars, scalars_len_, algorithm);
    auto acc = fused::linear_float(op, x, w, b);
    *ret0 = wrap(fused::epilogue(std::move(acc), nullptr, fused::Binary::kAdd, unary, x.dtype));
  });
}

}  // extern "C"
