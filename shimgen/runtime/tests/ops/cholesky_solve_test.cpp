#include "op_test.h"

using namespace op_test;

OP_TEST(cholesky_solve) {
  // A = [[4, 2], [2, 3]] = L L^T, L = [[2, 0], [1, sqrt 2]]; A x = [2, 1] has x = [0.5, 0].
  const double r2 = std::sqrt(2.0);
  std::vector<double> l{2, 0, 1, r2}, u{2, 1, 0, r2}, b{2, 1};
  AtenTensorHandle tl = over(l, {2, 2}, kFloat64), tu = over(u, {2, 2}, kFloat64), tb = over(b, {2, 1}, kFloat64);
  AtenTensorHandle x = nullptr;
  EXPECT(aoti_torch_cpu_cholesky_solve(tb, tl, 0, &x) == 0);
  EXPECT(near(values<double>(x), {0.5, 0.0}, 1e-12) && strides_of(x) == (std::vector<int64_t>{1, 2}));
  aoti_torch_delete_tensor_object(x);
  EXPECT(aoti_torch_cpu_cholesky_solve(tb, tu, 1, &x) == 0);  // the upper factor U = L^T
  EXPECT(near(values<double>(x), {0.5, 0.0}, 1e-12));
  aoti_torch_delete_tensor_object(x);
  std::vector<int64_t> ints{1, 0, 0, 1};  // negative control: integers are refused, the output untouched
  AtenTensorHandle ti = over(ints, {2, 2}, kInt64);
  x = nullptr;
  EXPECT(aoti_torch_cpu_cholesky_solve(tb, ti, 0, &x) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED && x == nullptr);
  for (AtenTensorHandle t : {tl, tu, tb, ti}) aoti_torch_delete_tensor_object(t);
}
