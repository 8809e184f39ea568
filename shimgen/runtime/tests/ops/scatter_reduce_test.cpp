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

// out (and self, the same view) strided: columns 1..2 of a 2 x 4 buffer, strides (4, 1) at offset 1, as
// inductor scatters torch_geometric's pooled readouts into a slice of the torch.cat buffer. The
// elements outside the view stay as they were.
OP_TEST(scatter_reduce_into_a_strided_view) {
  std::vector<float> buffer{-1, 1, 2, -1, -1, 3, 4, -1}, src{10, 20, 30, 40, 50, 60};
  std::vector<int64_t> index{0, 0, 1, 1, 0, 0};  // rows of src (3 x 2) to rows of out, every column
  AtenTensorHandle hsrc = over(src, {3, 2}, kFloat32), hi = over(index, {3, 2}, kInt64);
  const int64_t sizes[] = {2, 2}, strides[] = {4, 1};
  AtenTensorHandle ho = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(buffer.data() + 1, 2, sizes, strides, 0, kFloat32, 0, 0, &ho) == 0);
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, ho, 0, hi, hsrc, "sum", 1) == 0);
  // out[0] = [1, 2] + [10, 20] + [50, 60]; out[1] = [3, 4] + [30, 40]
  EXPECT(buffer == (std::vector<float>{-1, 61, 82, -1, -1, 33, 44, -1}));
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(ho, ho, 0, hi, hsrc, "amax", 0) == 0);
  EXPECT(buffer == (std::vector<float>{-1, 50, 60, -1, -1, 30, 40, -1}));
  // a dim of two elements at stride 0: refused, nothing written
  const int64_t broadcast[] = {0, 1};
  AtenTensorHandle hb = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(buffer.data() + 1, 2, sizes, broadcast, 0, kFloat32, 0, 0, &hb) == 0);
  EXPECT(aoti_torch_cpu_scatter_reduce_two_out(hb, hb, 0, hi, hsrc, "sum", 1) != 0);
  EXPECT(buffer == (std::vector<float>{-1, 50, 60, -1, -1, 30, 40, -1}));
  for (AtenTensorHandle h : {hsrc, hi, ho, hb}) aoti_torch_delete_tensor_object(h);
}
