// The native op tests: one file per op (<op>_test.cpp), each registering cases with OP_TEST(name);
// `shimgen_runtime_op_tests <name>` runs one, `all` runs every one. Tensors are made over the
// caller's arrays (aoti_torch_create_tensor_from_blob), so expected values are plain C++ data.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../expect.h"
#include "shimgen_runtime/shim.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace op_test {

constexpr int32_t kUInt8 = 0, kInt8 = 1, kInt32 = 3, kInt64 = 4, kFloat32 = 6, kFloat64 = 7, kComplex64 = 9, kBool = 11,
                  kBFloat16 = 15;  // PyTorch's dtype codes, as a caller sees them

inline std::map<std::string, std::function<void()>>& registry() {
  static std::map<std::string, std::function<void()>> cases;
  return cases;
}

struct Register {
  Register(const char* name, std::function<void()> body) { registry()[name] = std::move(body); }
};

// A tensor over `data` (row-major by default, or the given strides); the caller deletes it.
template <class T> AtenTensorHandle over(std::vector<T>& data, std::vector<int64_t> sizes, int32_t dtype,
                                         std::vector<int64_t> strides = {}) {
  if (strides.empty()) {
    strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  }
  AtenTensorHandle t = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(data.data(), static_cast<int64_t>(sizes.size()), sizes.data(),
                                            strides.data(), 0, dtype, 0, 0, &t) == 0);
  return t;
}

// The elements of a contiguous result tensor.
template <class T> std::vector<T> values(AtenTensorHandle t) {
  int64_t n = 0;
  void* data = nullptr;
  EXPECT(aoti_torch_get_numel(t, &n) == 0 && aoti_torch_get_data_ptr(t, &data) == 0);
  const T* p = static_cast<const T*>(data);
  return std::vector<T>(p, p + n);
}

}  // namespace op_test

#define OP_TEST_CAT2(a, b) a##b
#define OP_TEST_CAT(a, b) OP_TEST_CAT2(a, b)
#define OP_TEST(name)                                                                                 \
  static void OP_TEST_CAT(op_test_, name)();                                                          \
  static const op_test::Register OP_TEST_CAT(op_test_reg_, name)(#name, OP_TEST_CAT(op_test_, name)); \
  static void OP_TEST_CAT(op_test_, name)()

namespace op_test {

// Sizes, strides and dtype of a result tensor.
inline std::vector<int64_t> sizes_of(AtenTensorHandle t) {
  int64_t dim = 0, *p = nullptr;
  EXPECT(aoti_torch_get_dim(t, &dim) == 0 && aoti_torch_get_sizes(t, &p) == 0);
  return std::vector<int64_t>(p, p + dim);
}
inline std::vector<int64_t> strides_of(AtenTensorHandle t) {
  int64_t dim = 0, *p = nullptr;
  EXPECT(aoti_torch_get_dim(t, &dim) == 0 && aoti_torch_get_strides(t, &p) == 0);
  return std::vector<int64_t>(p, p + dim);
}
inline int32_t dtype_of(AtenTensorHandle t) {
  int32_t d = -1;
  EXPECT(aoti_torch_get_dtype(t, &d) == 0);
  return d;
}
// The (real, imaginary) float pairs of a contiguous complex64 result, flattened.
inline std::vector<float> complex_values(AtenTensorHandle t) {
  int64_t n = 0;
  void* data = nullptr;
  EXPECT(aoti_torch_get_numel(t, &n) == 0 && aoti_torch_get_data_ptr(t, &data) == 0);
  const float* p = static_cast<const float*>(data);
  return std::vector<float>(p, p + 2 * n);
}
// Whether every |a[i] - b[i]| <= tol (same length).
template <class T> bool near(const std::vector<T>& a, const std::vector<T>& b, double tol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) <= tol)) return false;
  return true;
}

}  // namespace op_test
