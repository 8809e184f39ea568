#include "op_test.h"

using namespace op_test;

OP_TEST(fft_c2c) {
  // [1, 2, 3, 4] + 0i: forward DFT = [10, -2+2i, -2, -2-2i]; backward by n gives the input back.
  std::vector<float> x{1, 0, 2, 0, 3, 0, 4, 0};
  AtenTensorHandle t = over(x, {4}, kComplex64), f = nullptr, b = nullptr;
  const int64_t dim[] = {0};
  EXPECT(aoti_torch_cpu__fft_c2c(t, dim, 1, 0, 1, &f) == 0);
  EXPECT(dtype_of(f) == kComplex64 && sizes_of(f) == (std::vector<int64_t>{4}));
  EXPECT(near(complex_values(f), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-5));
  EXPECT(aoti_torch_cpu__fft_c2c(f, dim, 1, 2, 0, &b) == 0);  // inverse, normalized by n
  EXPECT(near(complex_values(b), x, 1e-5));
  aoti_torch_delete_tensor_object(b);
  aoti_torch_delete_tensor_object(f);
  // Length 3 (the direct DFT), ortho: [1, 1, 1] -> [sqrt(3), 0, 0].
  std::vector<float> y{1, 0, 1, 0, 1, 0};
  AtenTensorHandle u = over(y, {3}, kComplex64);
  EXPECT(aoti_torch_cpu__fft_c2c(u, dim, 1, 1, 1, &f) == 0);
  EXPECT(near(complex_values(f), {std::sqrt(3.0f), 0, 0, 0, 0, 0}, 1e-5));
  aoti_torch_delete_tensor_object(f);
  // A 2-d transform over a transposed input: torch's meta layout puts the transformed dims innermost
  // in the given order; over dim 0 of a [2, 3] (strides [3, 1]) the output has strides [1, 2].
  std::vector<float> z(12, 0.0f);
  AtenTensorHandle w = over(z, {2, 3}, kComplex64);
  EXPECT(aoti_torch_cpu__fft_c2c(w, dim, 1, 0, 1, &f) == 0);
  EXPECT(strides_of(f) == (std::vector<int64_t>{1, 2}));
  aoti_torch_delete_tensor_object(f);
  std::vector<float> real{1, 2};
  AtenTensorHandle r = over(real, {2}, kFloat32);  // real input: r2c's job
  EXPECT(aoti_torch_cpu__fft_c2c(r, dim, 1, 0, 1, &f) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  EXPECT(aoti_torch_cpu__fft_c2c(t, dim, 1, 3, 1, &f) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  for (AtenTensorHandle h : {t, u, w, r}) aoti_torch_delete_tensor_object(h);
}
