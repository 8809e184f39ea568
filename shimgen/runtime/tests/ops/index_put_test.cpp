#include "op_test.h"

using namespace op_test;

OP_TEST(index_put) {
  std::vector<float> x{0, 1, 2, 3, 4, 5};  // [2, 3], written in place (out == self)
  AtenTensorHandle t = over(x, {2, 3}, kFloat32);
  // x[mask] = 9 (values broadcast over the selected elements).
  std::vector<uint8_t> mask{1, 0, 0, 0, 1, 1};
  std::vector<float> nine{9};
  AtenTensorHandle m = over(mask, {2, 3}, kBool), v9 = over(nine, {1}, kFloat32);
  const AtenTensorHandle by_mask[] = {m};
  EXPECT(aoti_torch_index_put_out(t, t, by_mask, 1, v9, false) == 0);
  EXPECT(x == (std::vector<float>{9, 1, 2, 3, 9, 9}));
  // x[:, [2, 2, 0]] += [[1, 2, 3], [4, 5, 6]]: the repeated column takes both sums.
  std::vector<int64_t> cols{2, 2, 0};
  std::vector<float> add{1, 2, 3, 4, 5, 6};
  AtenTensorHandle c = over(cols, {3}, kInt64), a = over(add, {2, 3}, kFloat32);
  const AtenTensorHandle none_cols[] = {nullptr, c};
  EXPECT(aoti_torch_index_put_out(t, t, none_cols, 2, a, true) == 0);
  EXPECT(x == (std::vector<float>{12, 1, 5, 9, 9, 18}));
  // int64 accumulation (what inductor cannot do with atomics) into a distinct out: out = self first.
  std::vector<int64_t> self_i{1, 1, 1}, out_i{0, 0, 0}, rows{2, -1, 0}, vals{5, 6, 7};
  AtenTensorHandle si = over(self_i, {3}, kInt64), oi = over(out_i, {3}, kInt64), r = over(rows, {3}, kInt64),
                   vi = over(vals, {3}, kInt64);
  const AtenTensorHandle by_rows[] = {r};
  EXPECT(aoti_torch_index_put_out(oi, si, by_rows, 1, vi, true) == 0);
  EXPECT(out_i == (std::vector<int64_t>{8, 1, 12}) && self_i == (std::vector<int64_t>{1, 1, 1}));
  // Refused before any write: an index past the dim, values of another dtype.
  std::vector<int64_t> past{3};
  AtenTensorHandle p = over(past, {1}, kInt64);
  const AtenTensorHandle by_past[] = {nullptr, p};
  EXPECT(aoti_torch_index_put_out(t, t, by_past, 2, v9, false) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_index_put_out(oi, si, by_rows, 1, v9, true) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(x == (std::vector<float>{12, 1, 5, 9, 9, 18}) && out_i == (std::vector<int64_t>{8, 1, 12}));
  for (AtenTensorHandle h : {t, m, v9, c, a, si, oi, r, vi, p}) aoti_torch_delete_tensor_object(h);
}
