// aoti_torch_cpu__qconv_pointwise_tensor: onednn::qconv_pointwise.tensor, the int8 convolution (BN
// folded) a PT2E-quantized model compiled with freezing=True calls: X uint8/int8 [N, C, H, W] with
// per-tensor scale and zero point, the int8 weight [O, C/g, KH, KW] (unpacked at load), per-channel
// weight scales, bias, a unary post-op, requantized or stored float (onednn_quant.h). 2-D only. The
// result is channels-last when X is, as the generated code expects of torch's op.
#include "onednn_quant.h"
#include "qconv_common.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__qconv_pointwise_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* B, const int64_t* stride,
    int64_t stride_len_, const int64_t* padding, int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_,
    int64_t groups, double output_scale, int64_t output_zero_point, const int32_t* output_dtype, const char* attr,
    const double** post_op_args, int64_t post_op_args_len_, const char** algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "qconv_pointwise.tensor";
    require_out(ret0, "ret0");
    const quant::Activation a = quant::activation(op, X, act_scale, act_zero_point);
    const Tensor& w = cpu_tensor(onednn_weight, "onednn_weight");
    const quant::Epilogue e = quant::epilogue(
        B, fused::parse_unary(op, attr, post_op_args, post_op_args_len_, algorithm), output_scale, output_zero_point);
    const int32_t dtype = quant::output_dtype(op, output_dtype, *a.x);
    std::vector<int64_t> sizes;
    const std::vector<int32_t> acc =
        quant::conv2d_s32(op, a, w, stride, stride_len_, padding, padding_len_, dilation, dilation_len_, groups, sizes);
    auto out = empty_tensor(sizes, quant::conv_out_strides(*a.x, sizes), dtype, kCPU, -1);
    quant::finish(op, acc, {sizes[0], sizes[2], sizes[3], sizes[1]}, {0, 2, 3, 1},
                  quant::channel_scales(op, a, weight_scales, weight_zero_points, sizes[1]), e, *out);
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
