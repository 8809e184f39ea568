#include <cstring>

#include "op_test.h"

using namespace op_test;

namespace {
const int64_t kOne[2] = {1, 1}, kZero[2] = {0, 0};
const char* kNone = "";
}  // namespace

OP_TEST(mkldnn_convolution_pointwise) {
  // X [1, 2, 2, 2] channels-last (channel 0: 1 2 3 4, channel 1: 4 3 2 1), W [1, 2, 1, 1] = {1, -1}:
  // conv = channel 0 - channel 1 = {-3, -1, 1, 3}; relu {0, 0, 1, 3}; a channels-last result.
  std::vector<float> x{1, 4, 2, 3, 3, 2, 4, 1}, w{1, -1};
  AtenTensorHandle X = over(x, {1, 2, 2, 2}, kFloat32, {8, 1, 4, 2}), W = over(w, {1, 2, 1, 1}, kFloat32), r = nullptr;
  const double* scalars[1] = {nullptr};
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise(X, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "relu", scalars, 1,
                                                      &kNone, &r) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{1, 1, 2, 2}) && strides_of(r) == (std::vector<int64_t>{4, 1, 2, 1}));
  EXPECT(values<float>(r) == (std::vector<float>{0, 0, 1, 3}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise(X, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "hardsigmoid",
                                                      scalars, 1, &kNone, &r) == 0);
  EXPECT(near(values<float>(r), {0, 2.0f / 6, 4.0f / 6, 1}, 1e-6));
  aoti_torch_delete_tensor_object(r);
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise(X, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "elu", scalars, 1,
                                                      &kNone, &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);

  // Binary: relu(conv + other), other {10, -10, 0, 1}: {7, 0, 1, 4}; out of place leaves other.
  std::vector<float> other{10, -10, 0, 1};
  AtenTensorHandle O = over(other, {1, 1, 2, 2}, kFloat32);
  const char* relu = "relu";
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise_binary(X, O, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "add",
                                                             nullptr, &relu, scalars, 1, &kNone, &r) == 0);
  EXPECT(values<float>(r) == (std::vector<float>{7, 0, 1, 4}) && other == (std::vector<float>{10, -10, 0, 1}));
  aoti_torch_delete_tensor_object(r);
  // In place: other holds the result, ret0 is a handle onto it.
  double one = 1, two = 2;
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise_binary_(O, X, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "add",
                                                              &one, &relu, scalars, 1, &kNone, &r) == 0);
  void* p = nullptr;
  EXPECT(aoti_torch_get_data_ptr(r, &p) == 0 && p == other.data());
  EXPECT(other == (std::vector<float>{7, 0, 1, 4}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(aoti_torch_cpu_mkldnn__convolution_pointwise_binary(X, O, W, nullptr, kZero, 2, kOne, 2, kOne, 2, 1, "add",
                                                             &two, &relu, scalars, 1, &kNone,
                                                             &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  for (AtenTensorHandle t : {X, W, O}) aoti_torch_delete_tensor_object(t);
}

OP_TEST(mkldnn_convolution_transpose_pointwise) {
  // X [1, 2, 1, 1] = {1, 10}. A prepacked weight is in oneDNN's [O, I, 1, 1] order: {1, 2, 3, 4}
  // gives o0 = 1*1 + 10*2 = 21, o1 = 1*3 + 10*4 = 43. The same numbers as a plain torch weight
  // [I, O, 1, 1] give o0 = 1 + 30 = 31, o1 = 2 + 40 = 42.
  std::vector<float> x{1, 10}, w{1, 2, 3, 4};
  std::vector<uint8_t> blob(772, 0);
  auto put = [&](size_t at, auto v) { std::memcpy(blob.data() + at, &v, sizeof v); };
  put(0, int32_t{1});
  put(4, int32_t{4});
  put(104, int32_t{3});
  put(312, int32_t{2});
  const int64_t dims[4] = {2, 2, 1, 1}, strides[4] = {2, 1, 1, 1};
  for (size_t d = 0; d < 4; ++d) {
    put(8 + 8 * d, dims[d]);
    put(112 + 8 * d, dims[d]);
    put(320 + 8 * d, strides[d]);
  }
  put(768, int32_t{1});
  AtenTensorHandle packed = nullptr, r = nullptr;
  const int64_t zeros[4] = {0, 0, 0, 0};
  EXPECT(aoti_torch_create_tensor_from_blob_v2(w.data(), 4, dims, zeros, 0, kFloat32, 0, 0, &packed, 3, blob.data(),
                                               772) == 0);
  AtenTensorHandle X = over(x, {1, 2, 1, 1}, kFloat32), plain = over(w, {2, 2, 1, 1}, kFloat32);
  const double* scalars[1] = {nullptr};
  EXPECT(aoti_torch_cpu_mkldnn__convolution_transpose_pointwise(X, packed, nullptr, kZero, 2, kZero, 2, kOne, 2, kOne,
                                                                2, 1, "none", scalars, 1, &kNone, &r) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{1, 2, 1, 1}) && values<float>(r) == (std::vector<float>{21, 43}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(aoti_torch_cpu_mkldnn__convolution_transpose_pointwise(X, plain, nullptr, kZero, 2, kZero, 2, kOne, 2, kOne, 2,
                                                                1, "none", scalars, 1, &kNone, &r) == 0);
  EXPECT(values<float>(r) == (std::vector<float>{31, 42}));
  aoti_torch_delete_tensor_object(r);
  for (AtenTensorHandle t : {X, plain, packed}) aoti_torch_delete_tensor_object(t);
}
