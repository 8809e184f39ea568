// aoti_torch_cpu__qlinear_pointwise_tensor: onednn::qlinear_pointwise.tensor, the int8 Linear a
// PT2E-quantized (X86InductorQuantizer) model compiled with freezing=True calls. X uint8/int8 with
// per-tensor scale and zero point (tensors), the int8 weight prepacked as [K, N] (unpacked at load),
// per-channel weight scales, bias, a unary post-op, then requantized to output_scale /
// output_zero_point or stored as float32/bfloat16 (onednn_quant.h). A new contiguous [..., N].
#include "onednn_quant.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__qlinear_pointwise_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* B, double output_scale,
    int64_t output_zero_point, const int32_t* output_dtype, const char* post_op_name, const double** post_op_args,
    int64_t post_op_args_len_, const char* post_op_algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "qlinear_pointwise.tensor";
    require_out(ret0, "ret0");
    const quant::Activation a = quant::activation(op, X, act_scale, act_zero_point);
    const Tensor& w = cpu_tensor(onednn_weight, "onednn_weight");
    const quant::Epilogue e =
        quant::epilogue(B, fused::parse_unary(op, post_op_name, post_op_args, post_op_args_len_, &post_op_algorithm),
                        output_scale, output_zero_point);
    const int32_t dtype = quant::output_dtype(op, output_dtype, *a.x);
    const quant::LinearS32 p = quant::linear_s32(op, a, w);
    const int64_t rows = p.rows, n = p.n;
    const std::vector<int32_t>& acc = p.acc;
    const std::vector<int64_t>& sizes = p.sizes;
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), dtype, kCPU, -1);
    // [rows, N] over the output's contiguous [..., N]: one logical 2-D view.
    Tensor flat{out->storage, {rows, n}, {n, 1}, 0, dtype};
    quant::finish(op, acc, {rows, n}, {0, 1}, quant::channel_scales(op, a, weight_scales, weight_zero_points, n), e,
                  flat);
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
