#include "op_test.h"

using namespace op_test;

OP_TEST(triangular_solve) {
  // U = [[2, 1], [0, 4]], U x = [4, 8]: x = [1, 2]; U^T y = [4, 8]: y = [2, 1.5]. cloned_coefficient = U.
  std::vector<double> u{2, 1, 0, 4}, b{4, 8};
  AtenTensorHandle tu = over(u, {2, 2}, kFloat64), tb = over(b, {2, 1}, kFloat64), x = nullptr, m = nullptr;
  EXPECT(aoti_torch_cpu_triangular_solve(tb, tu, 1, 0, 0, &x, &m) == 0);
  EXPECT(near(values<double>(x), {1, 2}, 1e-12) && values<double>(m) == (std::vector<double>{2, 0, 1, 4}));
  EXPECT(strides_of(m) == (std::vector<int64_t>{1, 2}));  // column-major, as torch's
  aoti_torch_delete_tensor_object(x);
  aoti_torch_delete_tensor_object(m);
  EXPECT(aoti_torch_cpu_triangular_solve(tb, tu, 1, 1, 0, &x, &m) == 0);
  EXPECT(near(values<double>(x), {2, 1.5}, 1e-12));
  aoti_torch_delete_tensor_object(x);
  aoti_torch_delete_tensor_object(m);
  std::vector<double> wide{1, 2, 3};  // negative control: 3 rows against a 2 x 2 A
  AtenTensorHandle tw = over(wide, {3, 1}, kFloat64);
  x = nullptr;
  EXPECT(aoti_torch_cpu_triangular_solve(tw, tu, 1, 0, 0, &x, &m) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT &&
         x == nullptr);
  for (AtenTensorHandle t : {tu, tb, tw}) aoti_torch_delete_tensor_object(t);
}
