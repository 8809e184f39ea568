// aoti_torch_cpu__grouped_mm: torch._grouped_mm on the CPU, the expert GEMM that transformers' MoE
// layers call in bfloat16 (in float32 they hand transformers' own op to the proxy executor). One
// GEMM per group through the runtime's BLAS; 16-bit operands are computed in float32 and rounded
// once, as torch's CPU kernel (an mm per group) computes them. The four shapes are in
// shim_cpu_ops.h. torch's own checks of alignment (16-byte strides) are not repeated: any strides
// are read.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// The cumulative group ends in offs, checked against the length of the dim they split.
std::vector<int64_t> group_ends(const Tensor& offs, int64_t total, const char* dim) {
  const auto* ends = reinterpret_cast<const int32_t*>(offs.data());
  std::vector<int64_t> out(static_cast<size_t>(offs.sizes[0]));
  int64_t previous = 0;
  for (int64_t g = 0; g < offs.sizes[0]; ++g) {
    const int64_t end = ends[g * offs.strides[0]];
    SHIMGEN_REQUIRE(end >= previous && end <= total, std::string("offs must be non-decreasing ends within ") + dim +
                                                         " (" + std::to_string(total) + "), got " +
                                                         std::to_string(end) + " at group " + std::to_string(g));
    out[static_cast<size_t>(g)] = previous = end;
  }
  return out;
}

// A 2-d slice of a float32 tensor: rows x cols from element `offset`, with the given strides.
Matrix<const float> part(const Tensor& t, int64_t offset, int64_t rows, int64_t cols, int64_t row_stride,
                         int64_t col_stride) {
  return {reinterpret_cast<const float*>(t.data()) + offset, rows, cols, row_stride, col_stride};
}

Matrix<float> part_out(const Tensor& t, int64_t offset, int64_t rows, int64_t cols, int64_t row_stride,
                       int64_t col_stride) {
  return {reinterpret_cast<float*>(t.data()) + offset, rows, cols, row_stride, col_stride};
}

// c = a @ b; an empty contraction gives zeros (a group that owns no K).
void product(const Matrix<const float>& a, const Matrix<const float>& b, const Matrix<float>& c, BOperand kind) {
  if (c.rows == 0 || c.cols == 0) return;
  if (a.cols == 0) {
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j) c.at(i, j) = 0.0f;
    return;
  }
  gemm(a, b, c, 1.0f, 0.0f, kind);
}

// The products of float32 a and b into float32 out (zeroed, contiguous), by case.
void grouped(const Tensor& a, const Tensor& b, const Tensor* offs, const Tensor& out, BOperand kind) {
  const auto& as = a.sizes;
  const auto& bs = b.sizes;
  const auto& A = a.strides;
  const auto& B = b.strides;
  const auto& C = out.strides;
  if (as.size() == 3 && bs.size() == 3) {  // bmm
    for (int64_t g = 0; g < as[0]; ++g)
      product(part(a, g * A[0], as[1], as[2], A[1], A[2]), part(b, g * B[0], bs[1], bs[2], B[1], B[2]),
              part_out(out, g * C[0], as[1], bs[2], C[1], C[2]), kind);
    return;
  }
  if (as.size() == 2 && bs.size() == 3) {  // offs splits self's rows
    int64_t start = 0;
    const auto ends = group_ends(*offs, as[0], "self's rows");
    for (size_t g = 0; g < ends.size(); ++g) {
      const int64_t rows = ends[g] - start;
      product(part(a, start * A[0], rows, as[1], A[0], A[1]), part(b, int64_t(g) * B[0], bs[1], bs[2], B[1], B[2]),
              part_out(out, start * C[0], rows, bs[2], C[0], C[1]), kind);
      start = ends[g];
    }
    return;
  }
  if (as.size() == 2 && bs.size() == 2) {  // offs splits K: one [M, N] product per group
    int64_t start = 0;
    const auto ends = group_ends(*offs, as[1], "K");
    for (size_t g = 0; g < ends.size(); ++g) {
      const int64_t depth = ends[g] - start;
      product(part(a, start * A[1], as[0], depth, A[0], A[1]), part(b, start * B[0], depth, bs[1], B[0], B[1]),
              part_out(out, int64_t(g) * C[0], as[0], bs[1], C[1], C[2]), kind);
      start = ends[g];
    }
    return;
  }
  // 3-d x 2-d: offs splits mat2's columns; group g's columns are a[g] @ b[:, columns].
  int64_t start = 0;
  const auto ends = group_ends(*offs, bs[1], "mat2's columns");
  for (size_t g = 0; g < ends.size(); ++g) {
    const int64_t cols = ends[g] - start;
    product(part(a, int64_t(g) * A[0], as[1], as[2], A[1], A[2]), part(b, start * B[1], bs[0], cols, B[0], B[1]),
            part_out(out, start * C[1], as[1], cols, C[0], C[1]), kind);
    start = ends[g];
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                                                      AtenTensorHandle* offs, AtenTensorHandle* bias,
                                                                      int32_t* out_dtype, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(mat2, "mat2");
    const Tensor* o = optional_tensor(offs, "offs");
    if (o != nullptr) (void)cpu_tensor(*offs, "offs");
    if (optional_tensor(bias, "bias") != nullptr) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "Bias not supported yet");
    const bool floating = a.dtype == kFloat32 || is_half_dtype(a.dtype);
    if (!floating) {
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "Expected mat_a to be Float32, BFloat16 or Float16 matrix, got dtype code " + std::to_string(a.dtype));
    }
    SHIMGEN_REQUIRE(b.dtype == a.dtype, "expected mat_a and mat_b to have the same dtype");
    SHIMGEN_REQUIRE(out_dtype == nullptr || *out_dtype == a.dtype,
                    "Grouped gemm output dtype must match `mat_a` dtype");
    const auto& as = a.sizes;
    const auto& bs = b.sizes;
    SHIMGEN_REQUIRE((as.size() == 2 || as.size() == 3) && (bs.size() == 2 || bs.size() == 3),
                    "mat_a and mat_b must be 2-d or 3-d, got " + shape_str(as) + " and " + shape_str(bs));
    const bool both_3d = as.size() == 3 && bs.size() == 3;
    SHIMGEN_REQUIRE(both_3d == (o == nullptr),
                    "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d");
    if (o != nullptr) {
      SHIMGEN_REQUIRE(o->sizes.size() == 1, "offs has to be 1D");
      SHIMGEN_REQUIRE(o->dtype == kInt32, "Offsets have to be int32");
    }
    SHIMGEN_REQUIRE(as.back() == bs[bs.size() - 2], "contraction dimension of mat_a and mat_b must match");
    if (both_3d) SHIMGEN_REQUIRE(as[0] == bs[0], "batched dimension has to match");
    if (as.size() == 2 && bs.size() == 3) SHIMGEN_REQUIRE(o->sizes[0] == bs[0], "matrix batch sizes have to match");
    if (as.size() == 3 && bs.size() == 2) SHIMGEN_REQUIRE(o->sizes[0] == as[0], "matrix batch sizes have to match");
    std::vector<int64_t> sizes;
    if (both_3d) {
      sizes = {as[0], as[1], bs[2]};
    } else if (as.size() == 2 && bs.size() == 3) {
      sizes = {as[0], bs[2]};
    } else if (as.size() == 2) {
      sizes = {o->sizes[0], as[0], bs[1]};
    } else {
      sizes = {as[1], bs[1]};
    }
    auto result = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    // Rows or columns past the last offset: torch leaves them unset; zeros here.
    std::fill(result->data(), result->data() + result->numel() * static_cast<int64_t>(result->itemsize()), char(0));
    if (a.dtype == kFloat32) {
      // mat2 of a 3-d case is the experts' weights: the small GEMM may keep their packed copy.
      grouped(a, b, o, *result, bs.size() == 3 ? BOperand::kWeight : BOperand::kActivation);
    } else {
      auto wide = empty_tensor(sizes, contiguous_strides_of(sizes), kFloat32, kCPU, -1);
      std::fill(wide->data(), wide->data() + wide->numel() * static_cast<int64_t>(wide->itemsize()), char(0));
      grouped(*widened(a), *widened(b), o, *wide, BOperand::kActivation);  // fresh copies: nothing to keep
      store_narrowed(*wide, *result);
    }
    *ret0 = wrap(std::move(result));
  });
}
