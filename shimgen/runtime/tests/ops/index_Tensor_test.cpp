#include "op_test.h"

using namespace op_test;

OP_TEST(index_Tensor) {
  std::vector<float> x{0, 1, 2, 3, 4, 5};  // [2, 3]
  AtenTensorHandle t = over(x, {2, 3}, kFloat32), out = nullptr;
  // x[mask] with a [2, 3] bool mask: the selected elements, row-major, 1-d.
  std::vector<uint8_t> mask{1, 0, 1, 0, 1, 1};
  AtenTensorHandle m = over(mask, {2, 3}, kBool);
  const AtenTensorHandle* by_mask[] = {&m};
  EXPECT(aoti_torch_cpu_index_Tensor(t, by_mask, 1, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{0, 2, 4, 5}));
  aoti_torch_delete_tensor_object(out);
  // x[:, idx] with idx [-1, 0]: None keeps dim 0; [2, 2].
  std::vector<int64_t> idx{-1, 0};
  AtenTensorHandle i = over(idx, {2}, kInt64);
  const AtenTensorHandle* cols[] = {nullptr, &i};
  EXPECT(aoti_torch_cpu_index_Tensor(t, cols, 2, &out) == 0);
  EXPECT(sizes_of(out) == (std::vector<int64_t>{2, 2}) && values<float>(out) == (std::vector<float>{2, 0, 5, 3}));
  aoti_torch_delete_tensor_object(out);
  // x[rows, cols] pairs, broadcast: rows [1] against cols [2].
  std::vector<int64_t> one{1};
  AtenTensorHandle r = over(one, {1}, kInt64);
  const AtenTensorHandle* pairs[] = {&r, &i};
  EXPECT(aoti_torch_cpu_index_Tensor(t, pairs, 2, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{5, 3}));
  aoti_torch_delete_tensor_object(out);
  std::vector<int64_t> bad{3};
  AtenTensorHandle b = over(bad, {1}, kInt64);
  const AtenTensorHandle* past[] = {nullptr, &b};
  EXPECT(aoti_torch_cpu_index_Tensor(t, past, 2, &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  for (AtenTensorHandle h : {t, m, i, r, b}) aoti_torch_delete_tensor_object(h);
}
