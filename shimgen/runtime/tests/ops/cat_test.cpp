#include "op_test.h"

using namespace op_test;

OP_TEST(cat) {
  // Complex64 pieces along dim 0, as Qwen-Image's rotary table: a strided [2] (every other element of
  // x) and a contiguous [3]; a 1-d empty tensor in between is skipped (torch's legacy rule).
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8}, y{10, 11, 12, 13, 14, 15}, none;
  AtenTensorHandle a = over(x, {2}, kComplex64, {2}), b = over(y, {3}, kComplex64), e = over(none, {0}, kComplex64);
  AtenTensorHandle list[3] = {a, e, b}, r = nullptr;
  EXPECT(aoti_torch_cpu_cat(list, 3, 0, &r) == 0);
  EXPECT(dtype_of(r) == kComplex64 && sizes_of(r) == (std::vector<int64_t>{5}));
  EXPECT(complex_values(r) == (std::vector<float>{1, 2, 5, 6, 10, 11, 12, 13, 14, 15}));
  aoti_torch_delete_tensor_object(r);

  // float32 [2, 2] (transposed) and [2, 1] along dim -1: a contiguous [2, 3].
  std::vector<float> m{1, 2, 3, 4}, c{9, 8};
  AtenTensorHandle mt = over(m, {2, 2}, kFloat32, {1, 2}), col = over(c, {2, 1}, kFloat32);
  AtenTensorHandle pair[2] = {mt, col};
  EXPECT(aoti_torch_cpu_cat(pair, 2, -1, &r) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{2, 3}) && strides_of(r) == (std::vector<int64_t>{3, 1}));
  EXPECT(values<float>(r) == (std::vector<float>{1, 3, 9, 2, 4, 8}));
  aoti_torch_delete_tensor_object(r);

  // Channels-last [1, 2, 2, 1] inputs (NHWC memory) along C: a channels-last [1, 4, 2, 1] result;
  // with one contiguous input the result is contiguous.
  std::vector<float> p{1, 2, 3, 4}, q{5, 6, 7, 8};
  AtenTensorHandle pl = over(p, {1, 2, 2, 1}, kFloat32, {4, 1, 2, 2});
  AtenTensorHandle ql = over(q, {1, 2, 2, 1}, kFloat32, {4, 1, 2, 2});
  AtenTensorHandle nhwc[2] = {pl, ql};
  EXPECT(aoti_torch_cpu_cat(nhwc, 2, 1, &r) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{1, 4, 2, 1}) && strides_of(r) == (std::vector<int64_t>{8, 1, 4, 4}));
  EXPECT(values<float>(r) == (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
  aoti_torch_delete_tensor_object(r);
  AtenTensorHandle qc = over(q, {1, 2, 2, 1}, kFloat32), mixed[2] = {pl, qc};
  EXPECT(aoti_torch_cpu_cat(mixed, 2, 1, &r) == 0);
  EXPECT(strides_of(r) == (std::vector<int64_t>{8, 2, 1, 1}));
  EXPECT(values<float>(r) == (std::vector<float>{1, 3, 2, 4, 5, 6, 7, 8}));
  aoti_torch_delete_tensor_object(r);

  // Refused: sizes that differ off dim, a 0-d tensor, an empty list (invalid); mixed dtypes (unsupported).
  AtenTensorHandle bad[2] = {mt, b};
  EXPECT(aoti_torch_cpu_cat(bad, 2, 0, &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  AtenTensorHandle wide = over(m, {1, 4}, kFloat32), rows[2] = {mt, wide};
  EXPECT(aoti_torch_cpu_cat(rows, 2, 0, &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  AtenTensorHandle scalar = over(c, {}, kFloat32), zero_d[2] = {scalar, scalar};
  EXPECT(aoti_torch_cpu_cat(zero_d, 2, 0, &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_cpu_cat(list, 0, 0, &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  AtenTensorHandle real = over(c, {2}, kFloat32), complex_real[2] = {a, real};
  EXPECT(aoti_torch_cpu_cat(complex_real, 2, 0, &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  for (AtenTensorHandle t : {a, b, e, mt, col, pl, ql, qc, wide, scalar, real}) aoti_torch_delete_tensor_object(t);
}
