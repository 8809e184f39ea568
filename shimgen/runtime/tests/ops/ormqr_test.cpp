#include "op_test.h"

using namespace op_test;

OP_TEST(ormqr) {
  // geqrf of [3, 4]^T: v = [1, 0.5], tau = 1.6, Q = I - tau v v^T = [[-0.6, -0.8], [-0.8, 0.6]].
  std::vector<double> h{-5, 0.5}, tau{1.6}, c{1, 0, 0, 1};
  AtenTensorHandle th = over(h, {2, 1}, kFloat64), tt = over(tau, {1}, kFloat64), tc = over(c, {2, 2}, kFloat64);
  AtenTensorHandle q = nullptr;
  EXPECT(aoti_torch_cpu_ormqr(th, tt, tc, 1, 0, &q) == 0);  // Q I, column-major
  EXPECT(near(values<double>(q), {-0.6, -0.8, -0.8, 0.6}, 1e-12));
  aoti_torch_delete_tensor_object(q);
  EXPECT(aoti_torch_cpu_ormqr(th, tt, tc, 0, 1, &q) == 0);  // I Q^T (Q is symmetric)
  EXPECT(near(values<double>(q), {-0.6, -0.8, -0.8, 0.6}, 1e-12));
  aoti_torch_delete_tensor_object(q);
  std::vector<float> f{1, 0, 0, 1};  // negative control: float32 C against float64 reflectors
  AtenTensorHandle tf = over(f, {2, 2}, kFloat32);
  q = nullptr;
  EXPECT(aoti_torch_cpu_ormqr(th, tt, tf, 1, 0, &q) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT && q == nullptr);
  for (AtenTensorHandle t : {th, tt, tc, tf}) aoti_torch_delete_tensor_object(t);
}
