#include "op_test.h"

using namespace op_test;

OP_TEST(lu_unpack) {
  // A = [[2, 2], [4, 3]]: getrf swaps the rows (pivots [2, 2]), LU = [[4, 3], [0.5, 0.5]].
  std::vector<double> lu{4, 3, 0.5, 0.5};
  std::vector<int32_t> piv{2, 2};
  AtenTensorHandle tl = over(lu, {2, 2}, kFloat64), p = nullptr, l = nullptr, u = nullptr;
  AtenTensorHandle tp = nullptr;
  const int64_t n = 2, one = 1;
  EXPECT(aoti_torch_create_tensor_from_blob(piv.data(), 1, &n, &one, 0, 3 /* int32 */, 0, 0, &tp) == 0);
  EXPECT(aoti_torch_cpu_lu_unpack(tl, tp, 1, 1, &p, &l, &u) == 0);
  EXPECT(values<double>(p) == (std::vector<double>{0, 1, 1, 0}));  // row-major, as torch's
  EXPECT(values<double>(l) == (std::vector<double>{1, 0, 0.5, 1}) &&
         values<double>(u) == (std::vector<double>{4, 3, 0, 0.5}));
  for (AtenTensorHandle t : {p, l, u}) aoti_torch_delete_tensor_object(t);
  EXPECT(aoti_torch_cpu_lu_unpack(tl, tp, 0, 1, &p, &l, &u) == 0);  // L and U not asked: empty [0]
  EXPECT(sizes_of(l) == (std::vector<int64_t>{0}) && sizes_of(p) == (std::vector<int64_t>{2, 2}));
  for (AtenTensorHandle t : {p, l, u}) aoti_torch_delete_tensor_object(t);
  piv[0] = 3;  // negative control: a pivot past the matrix
  p = nullptr;
  EXPECT(aoti_torch_cpu_lu_unpack(tl, tp, 1, 1, &p, &l, &u) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT && p == nullptr);
  aoti_torch_delete_tensor_object(tl);
  aoti_torch_delete_tensor_object(tp);
}
