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
    const Tensor& x = cpu_tensor(X, "X");
    const Tensor& w = cpu_tensor(W, "W");
    const Tensor* b = optional_tensor(B, "B");
    fused::require_fused_dtype(op, x, "X");
    SHIMGEN_REQUIRE(w.dtype == x.dtype, std::string(op) + ": X and W must have one dtype");
    if (b != nullptr) {
      SHIMGEN_REQUIRE(b->storage->device_type == kCPU, std::string(op) + ": B is not a CPU tensor");
      fused::require_fused_dtype(op, *b, "B");
    }
    const fused::Unary unary = fused::parse_unary(op, attr, scalars, scalars_len_, algorithm);
    auto acc = fused::linear_float(op, x, w, b);
    *ret0 = wrap(fused::epilogue(std::move(acc), nullptr, fused::Binary::kAdd, unary, x.dtype));
  });
}

}  // extern "C"
