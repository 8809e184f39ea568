#include "op_test.h"

using namespace op_test;

OP_TEST(grid_sampler_3d) {
  // A 2x2x2 volume holding 0..7 (x fastest), one channel.
  std::vector<float> v{0, 1, 2, 3, 4, 5, 6, 7};
  AtenTensorHandle in = over(v, {1, 1, 2, 2, 2}, kFloat32), out = nullptr;
  // Points (x, y, z): the centre (the mean of all corners), the corner (-1, -1, -1), and a point
  // outside the volume (zeros padding gives 0; border padding clamps to the last voxel, 7).
  std::vector<float> g{0, 0, 0, -1, -1, -1, 3, 3, 3};
  AtenTensorHandle grid = over(g, {1, 1, 1, 3, 3}, kFloat32);
  EXPECT(aoti_torch_cpu_grid_sampler_3d(in, grid, 0, 0, 1, &out) == 0);
  EXPECT(sizes_of(out) == (std::vector<int64_t>{1, 1, 1, 1, 3}));
  EXPECT(near(values<float>(out), std::vector<float>{3.5f, 0.0f, 0.0f}, 1e-6));
  aoti_torch_delete_tensor_object(out);
  EXPECT(aoti_torch_cpu_grid_sampler_3d(in, grid, 1, 1, 1, &out) == 0);         // nearest, border
  EXPECT(near(values<float>(out), std::vector<float>{0.0f, 0.0f, 7.0f}, 0.0));  // 0.5 rounds to even: 0
  aoti_torch_delete_tensor_object(out);
  // align_corners=0 puts -1 on the outer face: (-1, -1, -1) is half a voxel outside, weight 1/8.
  EXPECT(aoti_torch_cpu_grid_sampler_3d(in, grid, 0, 0, 0, &out) == 0);
  EXPECT(near(values<float>(out), std::vector<float>{3.5f, 0.0f, 0.0f}, 1e-6));
  aoti_torch_delete_tensor_object(out);
  out = nullptr;
  EXPECT(aoti_torch_cpu_grid_sampler_3d(in, grid, 0, 5, 1, &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(out == nullptr);
  for (AtenTensorHandle h : {in, grid}) aoti_torch_delete_tensor_object(h);
}
