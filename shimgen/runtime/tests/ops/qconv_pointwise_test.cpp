// The int8 oneDNN convolutions (onednn_quant.h) against a float reference computed here from the
// dequantized operands: padding, stride, groups, a channels-last input and result, and the
// residual "sum" written into a channels-last accumulator.
#include <algorithm>

#include "op_test.h"

using namespace op_test;

namespace {
// float conv of X [1, 4, 5, 5] (dequantized) with W [4, 4/g, 3, 3] (dequantized), stride 2,
// padding 1, + bias: [1, 4, 3, 3] in NCHW order.
std::vector<float> reference(const std::vector<uint8_t>& x, int32_t zp, float xs, const std::vector<int8_t>& w,
                             const std::vector<float>& ws, const std::vector<float>& b, int g) {
  const int c = 4, o = 4, cg = c / g, og = o / g;
  std::vector<float> out(o * 9);
  for (int oc = 0; oc < o; ++oc)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 3; ++z) {
        double s = 0;
        for (int ic = 0; ic < cg; ++ic)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = 2 * y - 1 + ky, ix = 2 * z - 1 + kx;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              const int ci = (oc / og) * cg + ic;
              s += (x[(ci * 5 + iy) * 5 + ix] - zp) * static_cast<double>(xs) * w[((oc * cg + ic) * 3 + ky) * 3 + kx] *
                   ws[oc];
            }
        out[(oc * 3 + y) * 3 + z] = static_cast<float>(s + b[oc]);
      }
  return out;
}
}  // namespace

OP_TEST(qconv_pointwise_tensor) {
  std::vector<uint8_t> x(100);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 37) % 251);
  std::vector<int8_t> w(144);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>((i * 53) % 255) - 127);
  std::vector<float> ws{0.01f, 0.02f, 0.005f, 0.03f}, b{0.5f, -1, 0, 2}, as{0.05f};
  std::vector<int32_t> az{100};
  std::vector<int64_t> wz{0, 0, 0, 0};
  const int64_t two[2] = {2, 2}, one[2] = {1, 1};
  const double* args[1] = {nullptr};
  const char* none = "";
  int32_t f32 = kFloat32;
  AtenTensorHandle AS = over(as, {}, kFloat32), AZ = over(az, {}, kInt32), WS = over(ws, {4}, kFloat32),
                   B = over(b, {4}, kFloat32), WZ = over(wz, {4}, kInt64);
  for (int g : {1, 2}) {
    AtenTensorHandle X = over(x, {1, 4, 5, 5}, kUInt8), W = over(w, {4, 4 / g, 3, 3}, kInt8), r = nullptr;
    EXPECT(aoti_torch_cpu__qconv_pointwise_tensor(X, AS, AZ, W, WS, WZ, &B, two, 2, one, 2, one, 2, g, 1.0, 0, &f32,
                                                  "none", args, 1, &none, &r) == 0);
    EXPECT(sizes_of(r) == (std::vector<int64_t>{1, 4, 3, 3}) && strides_of(r) == (std::vector<int64_t>{36, 9, 3, 1}));
    EXPECT(near(values<float>(r), reference(x, 100, 0.05f, w, ws, b, g), 1e-2));
    aoti_torch_delete_tensor_object(r);
    aoti_torch_delete_tensor_object(X);
    aoti_torch_delete_tensor_object(W);
  }
  // The same X channels-last: a channels-last result of the same values.
  std::vector<uint8_t> xl(100);
  for (int ch = 0; ch < 4; ++ch)
    for (int p = 0; p < 25; ++p) xl[p * 4 + ch] = x[ch * 25 + p];
  AtenTensorHandle XL = over(xl, {1, 4, 5, 5}, kUInt8, {100, 1, 20, 4}), W = over(w, {4, 4, 3, 3}, kInt8), r = nullptr;
  EXPECT(aoti_torch_cpu__qconv_pointwise_tensor(XL, AS, AZ, W, WS, WZ, &B, two, 2, one, 2, one, 2, 1, 1.0, 0, &f32,
                                                "none", args, 1, &none, &r) == 0);
  EXPECT(strides_of(r) == (std::vector<int64_t>{36, 1, 12, 4}));
  const std::vector<float> want = reference(x, 100, 0.05f, w, ws, b, 1);
  std::vector<float> got = values<float>(r), nchw(36);
  for (int ch = 0; ch < 4; ++ch)
    for (int p = 0; p < 9; ++p) nchw[ch * 9 + p] = got[p * 4 + ch];
  EXPECT(near(nchw, want, 1e-2));
  aoti_torch_delete_tensor_object(r);

  // "sum" into a channels-last float accumulator (all 1), then relu, in place.
  std::vector<float> acc(36, 1.0f);
  AtenTensorHandle ACC = over(acc, {1, 4, 3, 3}, kFloat32, {36, 1, 12, 4});
  double alpha = 1.0;
  const char* relu = "relu";
  EXPECT(aoti_torch_cpu__qconv2d_pointwise_binary_tensor(XL, AS, AZ, W, WS, WZ, ACC, &B, two, 2, one, 2, one, 2, 1, 1.0,
                                                         0, &f32, 1.0, 0, "sum", &alpha, &relu, args, 1, &none,
                                                         &r) == 0);
  for (int ch = 0; ch < 4; ++ch)
    for (int p = 0; p < 9; ++p) nchw[ch * 9 + p] = acc[p * 4 + ch];
  std::vector<float> summed(want);
  for (float& v : summed) v = std::max(v + 1.0f, 0.0f);
  EXPECT(near(nchw, summed, 1e-2));
  aoti_torch_delete_tensor_object(r);
  // Refused: a 1-D convolution (3-D X), an unknown binary op.
  std::vector<uint8_t> x1(20);
  AtenTensorHandle X1 = over(x1, {1, 4, 5}, kUInt8);
  EXPECT(aoti_torch_cpu__qconv_pointwise_tensor(X1, AS, AZ, W, WS, WZ, &B, two, 2, one, 2, one, 2, 1, 1.0, 0, &f32,
                                                "none", args, 1, &none, &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  EXPECT(aoti_torch_cpu__qconv2d_pointwise_binary_tensor(XL, AS, AZ, W, WS, WZ, ACC, &B, two, 2, one, 2, one, 2, 1, 1.0,
                                                         0, &f32, 1.0, 0, "mul", &alpha, &relu, args, 1, &none,
                                                         &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  for (AtenTensorHandle h : {AS, AZ, WS, B, WZ, XL, W, ACC, X1}) aoti_torch_delete_tensor_object(h);
}
