// aoti_torch_cpu__qlinear_pointwise_binary_tensor: onednn::qlinear_pointwise.binary_tensor, the
// int8 Linear with a binary post-op before the unary one: "sum" accumulates into `other` (the
// result is written there and returned as a handle onto it), "add" makes a new tensor. An integer
// other is dequantized with other_scale / other_zero_point, a float one read as is (onednn_quant.h).
#include "onednn_quant.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__qlinear_pointwise_binary_tensor(
    AtenTensorHandle X, AtenTensorHandle act_scale, AtenTensorHandle act_zero_point, AtenTensorHandle onednn_weight,
    AtenTensorHandle weight_scales, AtenTensorHandle weight_zero_points, AtenTensorHandle* other, AtenTensorHandle* B,
    double output_scale, int64_t output_zero_point, const int32_t* output_dtype, double other_scale,
    int64_t other_zero_point, const char* binary_post_op, double binary_alpha, const char* unary_post_op,
    const double** unary_post_op_args, int64_t unary_post_op_args_len_, const char* unary_post_op_algorithm,
    AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "qlinear_pointwise.binary_tensor";
    require_out(ret0, "ret0");
    const quant::Activation a = quant::activation(op, X, act_scale, act_zero_point);
    const Tensor& w = cpu_tensor(onednn_weight, "onednn_weight");
    const bool sum = quant::parse_binary(op, binary_post_op);
    quant::Epilogue e = quant::epilogue(
        B, fused::parse_unary(op, unary_post_op, unary_post_op_args, unary_post_op_args_len_, &unary_post_op_algorithm),
        output_scale, output_zero_point);
    e.other = optional_tensor(other, "other");
    SHIMGEN_REQUIRE(e.other != nullptr, std::string(op) + ": binary post-op '" + binary_post_op + "' without other");
    e.other_scale = static_cast<float>(other_scale);
    e.other_zero_point = other_zero_point;
    e.alpha = static_cast<float>(binary_alpha);
    const int32_t dtype = quant::output_dtype(op, output_dtype, *a.x);
    const quant::LinearS32 p = quant::linear_s32(op, a, w);
    const int64_t rows = p.rows, n = p.n;
    const std::vector<int32_t>& acc = p.acc;
    const std::vector<int64_t>& sizes = p.sizes;
    SHIMGEN_REQUIRE(e.other->sizes == sizes, std::string(op) + ": other must have the output's sizes");
    SHIMGEN_REQUIRE(!sum || e.other->dtype == dtype,
                    std::string(op) + ": 'sum' writes into other, which must have the output dtype");
    // The logical [rows, N] view of a [..., N] tensor needs its leading dims to collapse.
    auto flat_view = [&](const Tensor& t) {
      int64_t expect = t.strides.back() * n;
      for (size_t d = t.sizes.size() - 1; d-- > 0;) {
        SHIMGEN_REQUIRE(t.sizes[d] == 1 || t.strides[d] == expect,
                        std::string(op) + ": other's leading dims are not one block");
        expect *= t.sizes[d];
      }
      const int64_t row = t.sizes.size() >= 2 ? t.strides[t.sizes.size() - 2] : n;
      return Tensor{t.storage, {rows, n}, {rows > 1 ? row : n, t.strides.back()}, t.storage_offset, t.dtype};
    };
    const Tensor o = flat_view(*e.other);
    e.other = &o;
    const std::vector<float> scales = quant::channel_scales(op, a, weight_scales, weight_zero_points, n);
    if (sum) {
      const Tensor into = flat_view(*optional_tensor(other, "other"));
      quant::finish(op, acc, {rows, n}, {0, 1}, scales, e, into);
      *ret0 = quant::alias(*optional_tensor(other, "other"));
      return;
    }
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), dtype, kCPU, -1);
    const Tensor flat{out->storage, {rows, n}, {n, 1}, 0, dtype};
    quant::finish(op, acc, {rows, n}, {0, 1}, scales, e, flat);
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
