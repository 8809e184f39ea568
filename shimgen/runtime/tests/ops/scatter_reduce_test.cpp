#include "op_test.h"

using namespace op_test;

OP_TEST(scatter_reduce) {
  std::vector<float> self{10, 20, 30}, src{1, 2, 3, 4}, out(3, 0);
  std::vector<int64_t> index{0, 2, 0, 2};
  AtenTensorHandle hs = over(self, {3}, kFloat32), hsrc = over(src, {4}, kFloat32), hi = over(index, {4}, kInt64);
  AtenTensorHandle ho = over(out, {3}, kFloat32);
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, hs, 0, hi, hsrc, "sum", 1) == 0);
  EXPECT(out == (std::vector<float>{14, 20, 36}));
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, hs, 0, hi, hsrc, "amax", 0) == 0);
  EXPECT(out == (std::vector<float>{3, 20, 4}));
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, hs, 0, hi, hsrc, "mean", 1) == 0);
  EXPECT(out == (std::vector<float>{14.0f / 3, 20, 12}));
  index[1] = 3;  // out of bounds: refused before anything is written
  out.assign(3, -1);
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, hs, 0, hi, hsrc, "sum", 1) ==
         SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(out == (std::vector<float>{-1, -1, -1}));
  for (AtenTensorHandle h : {hs, hsrc, hi, ho}) aoti_torch_delete_tensor_object(h);
}
