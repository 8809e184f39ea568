// aoti_torch_cpu__qconv2d_pointwise_binary_tensor: onednn::qconv2d_pointwise.binary_tensor, a
// residual block's int8 convolution with the identity added before the unary post-op: "sum"
// accumulates into `accum` (written in place, returned as a handle onto it; what inductor emits),
// "add" makes a new tensor. An integer accum is dequantized with accum_scale / accum_zero_point, a
// float one read as is; alpha null or a value (result + alpha * accum) (onednn_quant.h).
#include "onednn_quant.h"
#include "qconv_common.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__qconv2d_pointwise_binary_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle accum, AtenTensorHandle* B,
    const int64_t* stride_args, int64_t stride_len_, const int64_t* padding_args, int64_t padding_len_,
    const int64_t* dilation_args, int64_t dilation_len_, int64_t groups, double output_scale, int64_t output_zero_point,
    const int32_t* output_dtype, double accum_scale, int64_t accum_zero_point, const char* binary_attr, double* alpha,
    const char** unary_attr, const double** unary_scalars, int64_t unary_scalars_len_, const char** unary_algorithm,
    AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "qconv2d_pointwise.binary_tensor";
    require_out(ret0, "ret0");
    const quant::Activation a = quant::activation(op, X, act_scale, act_zero_point);
    const Tensor& w = cpu_tensor(onednn_weight, "onednn_weight");
    const Tensor& acc_t = cpu_tensor(accum, "accum");
    const bool sum = quant::parse_binary(op, binary_attr);
    quant::Epilogue e = quant::epilogue(B,
                                        fused::parse_unary(op, unary_attr == nullptr ? nullptr : *unary_attr,
                                                           unary_scalars, unary_scalars_len_, unary_algorithm),
                                        output_scale, output_zero_point);
    e.other = &acc_t;
    e.other_scale = static_cast<float>(accum_scale);
    e.other_zero_point = accum_zero_point;
    e.alpha = alpha == nullptr ? 1.0f : static_cast<float>(*alpha);
    const int32_t dtype = quant::output_dtype(op, output_dtype, *a.x);
    std::vector<int64_t> sizes;
    const std::vector<int32_t> acc = quant::conv2d_s32(op, a, w, stride_args, stride_len_, padding_args, padding_len_,
                                                       dilation_args, dilation_len_, groups, sizes);
    SHIMGEN_REQUIRE(acc_t.sizes == sizes, std::string(op) + ": accum must have the output's sizes " + shape_str(sizes));
    const std::vector<float> scales = quant::channel_scales(op, a, weight_scales, weight_zero_points, sizes[1]);
    const std::vector<int64_t> logical{sizes[0], sizes[2], sizes[3], sizes[1]}, perm{0, 2, 3, 1};
    if (sum) {
      SHIMGEN_REQUIRE(acc_t.dtype == dtype,
                      std::string(op) + ": 'sum' writes into accum, which must have the output dtype");
      quant::finish(op, acc, logical, perm, scales, e, acc_t);
      *ret0 = quant::alias(acc_t);
      return;
    }
    auto out = empty_tensor(sizes, quant::conv_out_strides(*a.x, sizes), dtype, kCPU, -1);
    quant::finish(op, acc, logical, perm, scales, e, *out);
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
