// What the linalg ops (src/ops/cpu/linalg_*.cpp, cholesky_*.cpp, triangular_solve.cpp, ...) share:
// the LAPACK inside scipy-openblas32 (the library the GEMMs already link; Fortran symbols
// scipy_<name>_ with 32-bit integers, declared by its lapack.h), overloads per element type,
// batched column-major work buffers (leading batch dims, broadcast, any input strides), torch's
// output layouts and its _linalg_check_errors messages. float32 and float64; complex inputs are
// refused (Unsupported). Nothing here is exported.
#pragma once

#include <algorithm>
#include <climits>
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

// lapack.h names its symbols LAPACK_GLOBAL(name, NAME); scipy-openblas32 exports them prefixed. Its
// callers are LAPACK_<name> (no character arguments) or scipy_LAPACK_<name> (adds their lengths).
#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#define LAPACK_COMPLEX_CUSTOM
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapack.h>

namespace shimgen::rt::cpu::linalg {

using lint = lapack_int;

// ---- LAPACK, overloaded on the element type (jobs and sides are LAPACK's characters) ----
#define SHIMGEN_LAPACK_REAL(T, p)                                                                                      \
  inline void potrf(char uplo, lint n, T* a, lint lda, lint* info) {                                                   \
    scipy_LAPACK_##p##potrf(&uplo, &n, a, &lda, info);                                                                 \
  }                                                                                                                    \
  inline void potrs(char uplo, lint n, lint nrhs, const T* a, lint lda, T* b, lint ldb, lint* info) {                  \
    scipy_LAPACK_##p##potrs(&uplo, &n, &nrhs, a, &lda, b, &ldb, info);                                                 \
  }                                                                                                                    \
  inline void potri(char uplo, lint n, T* a, lint lda, lint* info) {                                                   \
    scipy_LAPACK_##p##potri(&uplo, &n, a, &lda, info);                                                                 \
  }                                                                                                                    \
  inline void getrf(lint m, lint n, T* a, lint lda, lint* ipiv, lint* info) {                                          \
    LAPACK_##p##getrf(&m, &n, a, &lda, ipiv, info);                                                                    \
  }                                                                                                                    \
  inline void getrs(char trans, lint n, lint nrhs, const T* a, lint lda, const lint* ipiv, T* b, lint ldb,             \
                    lint* info) {                                                                                      \
    scipy_LAPACK_##p##getrs(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                          \
  }                                                                                                                    \
  inline void geqrf(lint m, lint n, T* a, lint lda, T* tau, T* work, lint lwork, lint* info) {                         \
    LAPACK_##p##geqrf(&m, &n, a, &lda, tau, work, &lwork, info);                                                       \
  }                                                                                                                    \
  inline void orgqr(lint m, lint n, lint k, T* a, lint lda, const T* tau, T* work, lint lwork, lint* info) {           \
    LAPACK_##p##orgqr(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                                   \
  }                                                                                                                    \
  inline void ormqr(char side, char trans, lint m, lint n, lint k, const T* a, lint lda, const T* tau, T* c, lint ldc, \
                    T* work, lint lwork, lint* info) {                                                                 \
    scipy_LAPACK_##p##ormqr(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);                     \
  }                                                                                                                    \
  inline void gesdd(char jobz, lint m, lint n, T* a, lint lda, T* s, T* u, lint ldu, T* vt, lint ldvt, T* work,        \
                    lint lwork, lint* iwork, lint* info) {                                                             \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);                 \
  }                                                                                                                    \
  inline void syevd(char jobz, char uplo, lint n, T* a, lint lda, T* w, T* work, lint lwork, lint* iwork, lint liwork, \
                    lint* info) {                                                                                      \
    scipy_LAPACK_##p##syevd(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);                         \
  }                                                                                                                    \
  inline void geev(char jobvl, char jobvr, lint n, T* a, lint lda, T* wr, T* wi, T* vl, lint ldvl, T* vr, lint ldvr,   \
                   T* work, lint lwork, lint* info) {                                                                  \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, info);             \
  }                                                                                                                    \
  inline void trsm(bool left, bool upper, bool trans, bool unit, lint m, lint n, const T* a, lint lda, T* b,           \
                   lint ldb) {                                                                                         \
    scipy_cblas_##p##trsm(CblasColMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,               \
                          trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, m, n, T(1), a, lda, b,   \
                          ldb);                                                                                        \
  }
SHIMGEN_LAPACK_REAL(float, s)
SHIMGEN_LAPACK_REAL(double, d)
#undef SHIMGEN_LAPACK_REAL

// The optimal lwork a workspace query (lwork = -1) wrote into work[0], at least 1.
template <class T> lint query_size(T w) { return std::max<lint>(1, static_cast<lint>(w)); }

// Calls f(T{}) for float32 / float64; any other dtype fails Unsupported, naming `op`.
template <class F> void dispatch(int32_t dtype, const char* op, F&& f) {
  if (dtype == kFloat32) f(float{});
  else if (dtype == kFloat64) f(double{});
  else
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         std::string(op) + ": dtype code " + std::to_string(dtype) + " is not supported (float32 and float64 are)");
}

// ---- arguments and shapes ----
// A CPU tensor of float32/float64 with at least 2 dims (a batch of matrices), or an error naming op.
const Tensor& matrices(AtenTensorHandle handle, const char* op, const char* what);
// A batch of square matrices.
const Tensor& square_matrices(AtenTensorHandle handle, const char* op, const char* what);
// The leading dims of t (all but its last `trailing`).
std::vector<int64_t> batch_of(const Tensor& t, size_t trailing = 2);
// torch's broadcast of two batch shapes, or an error naming op.
std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const char* op);
int64_t count(const std::vector<int64_t>& sizes);  // the product of sizes
// The offset (elements) of each item of t's batch (its dims but the last `trailing`) broadcast to
// `batch`, in row-major order of `batch`.
std::vector<int64_t> batch_offsets(const Tensor& t, size_t trailing, const std::vector<int64_t>& batch);
// A LAPACK dimension: fails when v does not fit its 32-bit integers.
lint dim(int64_t v, const char* op);
std::vector<int64_t> with(std::vector<int64_t> batch, std::initializer_list<int64_t> tail);

// ---- new outputs ----
// torch's batched column-major layout (what its LAPACK-backed ops return): the last two dims
// transposed in memory, batch dims outermost; a 1-d shape gets stride 1, a 0-d none.
std::unique_ptr<Tensor> column_major(const std::vector<int64_t>& sizes, int32_t dtype);
std::unique_ptr<Tensor> row_major(const std::vector<int64_t>& sizes, int32_t dtype);
// The empty [0] torch returns for an output that was not asked for.
std::unique_ptr<Tensor> not_computed(int32_t dtype);

// ---- work buffers: each batch item an m x n column-major block (leading dimension m) ----
// t's trailing m x n matrices, broadcast to `batch`, any strides; transpose: the n x m transpose.
template <class T> std::vector<T> load(const Tensor& t, const std::vector<int64_t>& batch, bool transpose = false) {
  const size_t r = t.sizes.size();
  const int64_t m = t.sizes[r - 2], n = t.sizes[r - 1];
  const int64_t sr = t.strides[r - 2], sc = t.strides[r - 1];
  const std::vector<int64_t> offsets = batch_offsets(t, 2, batch);
  std::vector<T> out(offsets.size() * static_cast<size_t>(m * n));
  const T* src = reinterpret_cast<const T*>(t.data());
  T* dst = out.data();
  for (int64_t base : offsets) {
    if (!transpose) {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) *dst++ = src[base + i * sr + j * sc];
    } else {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) *dst++ = src[base + i * sr + j * sc];
    }
  }
  return out;
}

// Writes column-major blocks (ld = rows of out's matrices) into out (any strides); transpose: the
// blocks hold out's matrices transposed (n x m).
template <class T> void store(const T* buf, const Tensor& out, bool transpose = false) {
  const size_t r = out.sizes.size();
  const int64_t m = out.sizes[r - 2], n = out.sizes[r - 1];
  const int64_t sr = out.strides[r - 2], sc = out.strides[r - 1];
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t base : batch_offsets(out, 2, batch_of(out))) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) dst[base + i * sr + j * sc] = transpose ? buf[i * n + j] : buf[j * m + i];
    buf += m * n;
  }
}

// t's trailing vectors (each t.sizes.back() long), broadcast to `batch`, any strides, contiguous.
template <class T> std::vector<T> load_lines(const Tensor& t, const std::vector<int64_t>& batch) {
  const int64_t n = t.sizes.back(), s = t.strides.back();
  const T* src = reinterpret_cast<const T*>(t.data());
  std::vector<T> out;
  for (int64_t base : batch_offsets(t, 1, batch))
    for (int64_t i = 0; i < n; ++i) out.push_back(src[base + i * s]);
  return out;
}

// Writes a contiguous batch of vectors (or scalars: trailing 0) into out, any strides.
template <class T> void store_lines(const T* buf, const Tensor& out, size_t trailing) {
  const size_t r = out.sizes.size();
  const int64_t n = trailing == 0 ? 1 : out.sizes[r - 1], s = trailing == 0 ? 0 : out.strides[r - 1];
  T* dst = reinterpret_cast<T*>(out.data());
  for (int64_t base : batch_offsets(out, trailing, batch_of(out, trailing)))
    for (int64_t i = 0; i < n; ++i) dst[base + i * s] = *buf++;
}

// Zeroes the strict lower (upper: false) or upper triangle of each m x n column-major block.
template <class T> void zero_triangle(T* buf, int64_t batch, int64_t m, int64_t n, bool keep_upper) {
  for (int64_t b = 0; b < batch; ++b, buf += m * n)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i)
        if (keep_upper ? i > j : i < j) buf[j * m + i] = T(0);
}

// ---- the factorizations several ops share (each defined in the op file named), on column-major
// blocks of `items` matrices; infos: one LAPACK info per item ----
// linalg_lu_factor_ex.cpp: the LU of A's matrices (transpose: of their transposes, m and n swapped)
// by getrf: *buf holds the factors, and the outputs torch returns: LU (batched column-major, A's
// batch), pivots [*, min(m, n)] and info [*] (int32, contiguous).
struct Lu { std::unique_ptr<Tensor> lu, pivots, info; };
template <class T> Lu lu_factor(const Tensor& a, bool transpose, std::vector<T>* buf, const char* op);
// lu_factor of A's square matrices (n x n), then visit(item, U_jj, row j swapped) for each diagonal
// entry in order: what det and slogdet read.
template <class T, class Visit> Lu lu_diagonal(const Tensor& a, const char* op, Visit&& visit) {
  std::vector<T> buf;
  Lu lu = lu_factor(a, false, &buf, op);
  const int64_t n = a.sizes.back(), items = lu.info->numel();
  const auto* piv = reinterpret_cast<const int32_t*>(lu.pivots->data());
  for (int64_t i = 0; i < items; ++i)
    for (int64_t j = 0; j < n; ++j) visit(i, buf[(i * n + j) * n + j], piv[i * n + j] != j + 1);
  return lu;
}
// linalg_svd.cpp: gesdd of m x n blocks a (destroyed); jobz 'S' (u m x k, vt k x n), 'A' (u m x m,
// vt n x n) or 'N' (u, vt unused); s [items][k] descending.
template <class T> void svd(T* a, int64_t items, int64_t m, int64_t n, char jobz, T* s, T* u, T* vt, int32_t* infos);
// linalg_eigh.cpp: syevd of n x n blocks a (the `uplo` triangle read; vectors: a becomes the
// eigenvectors); w [items][n] ascending.
template <class T> void eigh(T* a, int64_t items, int64_t n, char uplo, bool vectors, T* w, int32_t* infos);
// linalg_qr.cpp: geqrf of m x n blocks a (the reflectors below the diagonal, R on and above), tau
// [items][min(m, n)]; form_q: orgqr on m x cols blocks q whose first k columns hold reflectors, tau
// of item i at tau + i * tau_stride.
template <class T> void householder(T* a, int64_t items, int64_t m, int64_t n, T* tau, const char* op);
template <class T>
void form_q(T* q, int64_t items, int64_t m, int64_t cols, int64_t k, const T* tau, int64_t tau_stride, const char* op);

// ---- errors: torch's _linalg_check_errors ----
// The message torch gives for a nonzero LAPACK info of batch item `item` of the call `api`
// ("linalg.cholesky", ...); is_matrix: the input was one matrix (no "(Batch element i): ").
std::string info_message(const std::string& api, int32_t info, int64_t item, bool is_matrix);
// Fails with the first nonzero info's message (InvalidArgument: the input, not the runtime).
void check_infos(const std::string& api, const int32_t* infos, int64_t count, bool is_matrix);

}  // namespace shimgen::rt::cpu::linalg
