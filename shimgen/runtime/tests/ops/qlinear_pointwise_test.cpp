// The int8 oneDNN Linear ops (onednn_quant.h): hand-computed int32 products, per-channel scales,
// bias, requantization with ties rounded to even (round-half-away would give other values here),
// saturation, "sum" in place and "add", refusals.
#include "op_test.h"

using namespace op_test;

namespace {
// X uint8 [2, 3] with zero point 11: shifted {-1, 1, 3, -2, 0, 2}; W int8 as packed, [K 3, N 2];
// int32 products {-2, 10, -4, 8}; scales 0.5 * {0.25, 0.5}; + bias {0.5, -0.25}: {0.25, 2.25, 0, 1.75}.
struct Case {
  std::vector<uint8_t> x{10, 12, 14, 9, 11, 13};
  std::vector<int8_t> w{1, -1, 2, 0, -1, 3};
  std::vector<float> ws{0.25f, 0.5f}, b{0.5f, -0.25f}, as{0.5f};
  std::vector<int32_t> az{11};
  std::vector<int64_t> wz{0, 0};
  AtenTensorHandle X = over(x, {2, 3}, kUInt8), W = over(w, {3, 2}, kInt8), WS = over(ws, {2}, kFloat32),
                   B = over(b, {2}, kFloat32), AS = over(as, {}, kFloat32), AZ = over(az, {}, kInt32),
                   WZ = over(wz, {2}, kInt64);
  const double* args[1] = {nullptr};
  AtenTensorHandle run(int32_t dtype, double scale, int64_t zp, const char* post = "none") {
    AtenTensorHandle r = nullptr;
    EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(X, AS, AZ, W, WS, WZ, &B, scale, zp, &dtype, post, args, 1, "",
                                                    &r) == 0);
    return r;
  }
};
}  // namespace

OP_TEST(qlinear_pointwise_tensor) {
  Case c;
  AtenTensorHandle r = c.run(kFloat32, 1.0, 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{2, 2}) &&
         values<float>(r) == (std::vector<float>{0.25f, 2.25f, 0, 1.75f}));
  aoti_torch_delete_tensor_object(r);
  // uint8 out, scale 0.5, zero point 3: {0.5, 4.5, 0, 3.5} round half to even {0, 4, 0, 4}, + 3.
  r = c.run(kUInt8, 0.5, 3);
  EXPECT(dtype_of(r) == kUInt8 && values<uint8_t>(r) == (std::vector<uint8_t>{3, 7, 3, 7}));
  aoti_torch_delete_tensor_object(r);
  // int8 out, scale 0.01: {25, 225, 0, 175} saturates at 127.
  r = c.run(kInt8, 0.01, 0);
  EXPECT(values<int8_t>(r) == (std::vector<int8_t>{25, 127, 0, 127}));
  aoti_torch_delete_tensor_object(r);
  // uint8 out with a negative value: saturates at 0 (zero point 0, scale 0.25): -0.25 / 0.25 = -1.
  c.b = {0.0f, 0.0f};
  r = c.run(kUInt8, 0.25, 0);
  EXPECT(values<uint8_t>(r) == (std::vector<uint8_t>{0, 10, 0, 8}));
  aoti_torch_delete_tensor_object(r);
  // relu before the rounding; bfloat16 out (every value exact).
  r = c.run(kBFloat16, 1.0, 0, "relu");
  EXPECT(dtype_of(r) == kBFloat16 && values<uint16_t>(r) == (std::vector<uint16_t>{0, 0x4020, 0, 0x4000}));
  aoti_torch_delete_tensor_object(r);
  r = c.run(kFloat32, 1.0, 0, "relu");
  EXPECT(values<float>(r) == (std::vector<float>{0, 2.5f, 0, 2}));
  aoti_torch_delete_tensor_object(r);
  // Output dtype null is X's own (torch's op answers so).
  AtenTensorHandle out = nullptr;
  EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &c.B, 0.25, 0, nullptr, "none",
                                                  c.args, 1, "", &out) == 0 &&
         dtype_of(out) == kUInt8);
  aoti_torch_delete_tensor_object(out);

  // Refused: a nonzero weight zero point, a float X, an int32 output, a float output with a scale.
  c.wz[1] = 1;
  int32_t f32 = kFloat32, i32 = kInt32;
  EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &c.B, 1.0, 0, &f32, "none", c.args,
                                                  1, "", &out) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  c.wz[1] = 0;
  std::vector<float> xf(6, 1.0f);
  AtenTensorHandle XF = over(xf, {2, 3}, kFloat32);
  EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(XF, c.AS, c.AZ, c.W, c.WS, c.WZ, &c.B, 1.0, 0, &f32, "none", c.args,
                                                  1, "", &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &c.B, 1.0, 0, &i32, "none", c.args,
                                                  1, "", &out) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  EXPECT(aoti_torch_cpu__qlinear_pointwise_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &c.B, 0.5, 0, &f32, "none", c.args,
                                                  1, "", &out) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  for (AtenTensorHandle h : {c.X, c.W, c.WS, c.B, c.AS, c.AZ, c.WZ, XF}) aoti_torch_delete_tensor_object(h);
}

OP_TEST(qlinear_pointwise_binary_tensor) {
  Case c;
  const double* args[1] = {nullptr};
  // "sum" into a float other {1, 2, 3, 4}: {1.25, 4.25, 3, 5.75}, written there; ret0 aliases it.
  std::vector<float> o{1, 2, 3, 4};
  AtenTensorHandle O = over(o, {2, 2}, kFloat32), r = nullptr;
  int32_t f32 = kFloat32, u8 = kUInt8;
  EXPECT(aoti_torch_cpu__qlinear_pointwise_binary_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &O, &c.B, 1.0, 0, &f32, 1.0,
                                                         0, "sum", 1.0, "none", args, 1, "", &r) == 0);
  EXPECT(o == (std::vector<float>{1.25f, 4.25f, 3, 5.75f}));
  void* p = nullptr;
  EXPECT(aoti_torch_get_data_ptr(r, &p) == 0 && p == o.data());
  aoti_torch_delete_tensor_object(r);
  // "sum" into a uint8 other (scale 0.5, zero point 2: {4, 2, 0, 6} is {1, 0, -1, 2}), uint8 out
  // scale 0.25: {1.25, 2.25, -1, 3.75} / 0.25 = {5, 9, -4, 15}, saturated at 0.
  std::vector<uint8_t> q{4, 2, 0, 6};
  AtenTensorHandle Q = over(q, {2, 2}, kUInt8);
  EXPECT(aoti_torch_cpu__qlinear_pointwise_binary_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &Q, &c.B, 0.25, 0, &u8, 0.5,
                                                         2, "sum", 1.0, "none", args, 1, "", &r) == 0);
  EXPECT(q == (std::vector<uint8_t>{5, 9, 0, 15}));
  aoti_torch_delete_tensor_object(r);
  // "add" then relu: a new tensor, other untouched; other {-1, -3, 0, 1}: relu {0, 0, 0, 2.75}.
  std::vector<float> a{-1, -3, 0, 1};
  AtenTensorHandle A = over(a, {2, 2}, kFloat32);
  EXPECT(aoti_torch_cpu__qlinear_pointwise_binary_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &A, &c.B, 1.0, 0, &f32, 1.0,
                                                         0, "add", 1.0, "relu", args, 1, "", &r) == 0);
  EXPECT(values<float>(r) == (std::vector<float>{0, 0, 0, 2.75f}) && a == (std::vector<float>{-1, -3, 0, 1}));
  aoti_torch_delete_tensor_object(r);
  // Refused: a binary op oneDNN's int8 Linear does not fuse.
  EXPECT(aoti_torch_cpu__qlinear_pointwise_binary_tensor(c.X, c.AS, c.AZ, c.W, c.WS, c.WZ, &A, &c.B, 1.0, 0, &f32, 1.0,
                                                         0, "mul", 1.0, "none", args, 1, "",
                                                         &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  for (AtenTensorHandle h : {c.X, c.W, c.WS, c.B, c.AS, c.AZ, c.WZ, O, Q, A}) aoti_torch_delete_tensor_object(h);
}
