// The helpers of linalg.h.
#include "linalg.h"

namespace shimgen::rt::cpu::linalg {

const Tensor& matrices(AtenTensorHandle handle, const char* op, const char* what) {
  const Tensor& t = cpu_tensor(handle, what);
  SHIMGEN_REQUIRE(t.sizes.size() >= 2, std::string(op) + ": " + what + " must have at least 2 dimensions, got " +
                                           std::to_string(t.sizes.size()));
  if (t.dtype != kFloat32 && t.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         std::string(op) + ": " + what + " has dtype code " + std::to_string(t.dtype) + ", not float32 or float64");
  return t;
}

const Tensor& square_matrices(AtenTensorHandle handle, const char* op, const char* what) {
  const Tensor& t = matrices(handle, op, what);
  const size_t r = t.sizes.size();
  SHIMGEN_REQUIRE(t.sizes[r - 1] == t.sizes[r - 2],
                  std::string(op) + ": " + what + " must be batches of square matrices, but they are " +
                      std::to_string(t.sizes[r - 2]) + " by " + std::to_string(t.sizes[r - 1]) + " matrices");
  return t;
}

std::vector<int64_t> batch_of(const Tensor& t, size_t trailing) {
  return std::vector<int64_t>(t.sizes.begin(), t.sizes.end() - static_cast<std::ptrdiff_t>(trailing));
}

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const char* op) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    SHIMGEN_REQUIRE(x == y || x == 1 || y == 1, std::string(op) + ": the batch dimensions " + shape_str(a) + " and " +
                                                    shape_str(b) + " do not broadcast");
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

int64_t count(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n = checked_mul(n, s, "batch size");
  return n;
}

std::vector<int64_t> batch_offsets(const Tensor& t, size_t trailing, const std::vector<int64_t>& batch) {
  const size_t own = t.sizes.size() - trailing;  // t's batch rank (at most batch's)
  SHIMGEN_REQUIRE(own <= batch.size(),
                  "batch dimensions " + shape_str(t.sizes) + " do not broadcast to " + shape_str(batch));
  for (size_t k = 0; k < own; ++k)
    SHIMGEN_REQUIRE(t.sizes[k] == 1 || t.sizes[k] == batch[batch.size() - own + k],
                    "batch dimensions " + shape_str(t.sizes) + " do not broadcast to " + shape_str(batch));
  std::vector<int64_t> out;
  const int64_t total = count(batch);
  out.reserve(static_cast<size_t>(total));
  std::vector<int64_t> index(batch.size(), 0);
  for (int64_t item = 0; item < total; ++item) {
    int64_t offset = 0;
    for (size_t k = 0; k < own; ++k) {
      const size_t d = batch.size() - own + k;
      if (t.sizes[k] != 1) offset += index[d] * t.strides[k];
    }
    out.push_back(offset);
    for (size_t d = batch.size(); d-- > 0;) {
      if (++index[d] < batch[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

lint dim(int64_t v, const char* op) {
  SHIMGEN_REQUIRE(v >= 0 && v <= INT_MAX,
                  std::string(op) + ": size " + std::to_string(v) + " is too large for the LAPACK's 32-bit integers");
  return static_cast<lint>(v);
}

std::vector<int64_t> with(std::vector<int64_t> batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail.begin(), tail.end());
  return batch;
}

std::unique_ptr<Tensor> column_major(const std::vector<int64_t>& sizes, int32_t dtype) {
  std::vector<int64_t> strides = contiguous_strides_of(sizes);
  const size_t r = sizes.size();
  if (r >= 2) {  // torch's batched_matrix_contiguous_strides(sizes, /*f_contig=*/true)
    strides[r - 1] = std::max<int64_t>(sizes[r - 2], 1);
    strides[r - 2] = 1;
  }
  return empty_tensor(sizes, strides, dtype, kCPU, -1);
}

std::unique_ptr<Tensor> row_major(const std::vector<int64_t>& sizes, int32_t dtype) {
  return empty_tensor(sizes, contiguous_strides_of(sizes), dtype, kCPU, -1);
}

std::unique_ptr<Tensor> not_computed(int32_t dtype) { return empty_tensor({0}, {1}, dtype, kCPU, -1); }

std::string info_message(const std::string& api, int32_t info, int64_t item, bool is_matrix) {
  const std::string where = api + ": " + (is_matrix ? "" : "(Batch element " + std::to_string(item) + "): ");
  const auto has = [&](const char* word) { return api.find(word) != std::string::npos; };
  const std::string code = std::to_string(info);
  if (info < 0) {
    if (has("svd") && info == -4)
      return where + "The algorithm failed to converge because the input matrix contained non-finite values.";
    return where + "Argument " + std::to_string(-static_cast<int64_t>(info)) +
           " has illegal value. Most certainly there is a bug in the implementation calling the backend library.";
  }
  if (has("inv"))
    return where + "The diagonal element " + code +
           " is zero, the inversion could not be completed because the input matrix is singular.";
  if (has("solve")) return where + "The solver failed because the input matrix is singular.";
  if (has("cholesky"))
    return where +
           "The factorization could not be completed because the input is not positive-definite (the leading "
           "minor of order " +
           code + " is not positive-definite).";
  if (has("svd"))
    return where +
           "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
           "repeated singular values (error code: " +
           code + ").";
  if (has("eig") || has("syevd"))
    return where +
           "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
           "repeated eigenvalues (error code: " +
           code + ").";
  if (has("lstsq"))
    return where +
           "The least squares solution could not be computed because the input matrix does not have full rank "
           "(error code: " +
           code + ").";
  if (has("lu_factor"))
    return where + "U[" + code + "," + code +
           "] is zero and using it on lu_solve would result in a division by zero. "
           "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
           "linalg.lu_factor_ex(A, pivot)";
  return where + "Unknown error code: " + code + ".";
}

void check_infos(const std::string& api, const int32_t* infos, int64_t n, bool is_matrix) {
  for (int64_t i = 0; i < n; ++i)
    if (infos[i] != 0) fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, info_message(api, infos[i], i, is_matrix));
}

}  // namespace shimgen::rt::cpu::linalg
