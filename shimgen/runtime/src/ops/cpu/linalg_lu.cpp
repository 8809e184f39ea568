// aten::linalg_lu (no C shim: served by the proxy executor) and the C shim aoti_torch_cpu_lu_unpack:
// the factors of A = P L U, row-major as torch's. linalg_lu factors A (lu_factor: getrf); lu_unpack
// takes linalg.lu_factor's LU and pivots. P [*, m, m] is the permutation LAPACK's row swaps make
// (pivots 1-based), L [*, m, k] unit lower, U [*, k, n] upper (k = min(m, n)). lu_unpack gives the
// empty [0] for P when not unpack_pivots, for L and U when not unpack_data.
#include "../proxy_ops.h"
#include "linalg.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;
using namespace shimgen::rt::cpu::linalg;

namespace {

// P, L, U from column-major LU factors (m x n per item) and pivots (k per item, int32).
template <class T> void unpack(const T* lu, const int32_t* piv, const std::vector<int64_t>& batch, int64_t m, int64_t n,
                               int32_t dtype, bool data, bool pivots, AtenTensorHandle* out) {
  const int64_t k = std::min(m, n), items = count(batch);
  auto p = pivots ? row_major(with(batch, {m, m}), dtype) : not_computed(dtype);
  auto l = data ? row_major(with(batch, {m, k}), dtype) : not_computed(dtype);
  auto u = data ? row_major(with(batch, {k, n}), dtype) : not_computed(dtype);
  if (data) {
    std::vector<T> lbuf(static_cast<size_t>(items * m * k), T(0)), ubuf(static_cast<size_t>(items * k * n), T(0));
    for (int64_t i = 0; i < items; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t row = 0; row < m; ++row) {
          const T v = lu[(i * n + j) * m + row];
          if (row > j && j < k) lbuf[(i * k + j) * m + row] = v;
          if (row <= j && row < k) ubuf[(i * n + j) * k + row] = v;
          if (row == j && j < k) lbuf[(i * k + j) * m + row] = T(1);
        }
    store(lbuf.data(), *l);
    store(ubuf.data(), *u);
  }
  if (pivots) {
    std::vector<T> pbuf(static_cast<size_t>(items * m * m), T(0));
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t i = 0; i < items; ++i) {
      for (int64_t r = 0; r < m; ++r) perm[r] = r;
      for (int64_t r = 0; r < k; ++r) {
        const int64_t to = piv[i * k + r] - 1;
        SHIMGEN_REQUIRE(to >= 0 && to < m, "lu_unpack: pivot " + std::to_string(to + 1) + " is out of range");
        std::swap(perm[r], perm[to]);
      }
      // (P^T A)[r] = A[perm[r]], so P[perm[r], r] = 1 (column-major: column r, row perm[r]).
      for (int64_t r = 0; r < m; ++r) pbuf[(i * m + r) * m + perm[r]] = T(1);
    }
    store(pbuf.data(), *p);
  }
  out[0] = wrap(std::move(p));
  out[1] = wrap(std::move(l));
  out[2] = wrap(std::move(u));
}

}  // namespace

namespace shimgen::rt::proxy_ops {

void cpu_linalg_lu(AtenTensorHandle A, bool pivot, AtenTensorHandle* out) {
  const Tensor& a = matrices(A, "linalg.lu", "A");
  SHIMGEN_REQUIRE(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  dispatch(a.dtype, "linalg.lu", [&](auto t) {
    using T = decltype(t);
    std::vector<T> buf;
    const Lu lu = lu_factor(a, false, &buf, "linalg.lu");
    unpack(buf.data(), reinterpret_cast<const int32_t*>(lu.pivots->data()), batch_of(a), a.sizes[a.sizes.size() - 2],
           a.sizes.back(), a.dtype, true, true, out);
  });
}

}  // namespace shimgen::rt::proxy_ops

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_lu_unpack(AtenTensorHandle LU_data,
                                                                    AtenTensorHandle LU_pivots, int32_t unpack_data,
                                                                    int32_t unpack_pivots, AtenTensorHandle* ret0,
                                                                    AtenTensorHandle* ret1, AtenTensorHandle* ret2) {
  return guarded(__func__, [&] {
    const Tensor& lu = matrices(LU_data, "lu_unpack", "LU_data");
    const Tensor& piv = cpu_tensor(LU_pivots, "LU_pivots");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    require_out(ret2, "ret2");
    const std::vector<int64_t> batch = batch_of(lu);
    const int64_t m = lu.sizes[lu.sizes.size() - 2], n = lu.sizes.back();
    SHIMGEN_REQUIRE(piv.dtype == kInt32,
                    "lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype");
    SHIMGEN_REQUIRE(piv.sizes == with(batch, {std::min(m, n)}),
                    "lu_unpack: LU_pivots " + shape_str(piv.sizes) + " does not match LU_data " + shape_str(lu.sizes));
    const std::vector<int32_t> pivots = load_lines<int32_t>(piv, batch);
    AtenTensorHandle out[3] = {};
    dispatch(lu.dtype, "lu_unpack", [&](auto t) {
      unpack(load<decltype(t)>(lu, batch).data(), pivots.data(), batch, m, n, lu.dtype, unpack_data != 0,
             unpack_pivots != 0, out);
    });
    *ret0 = out[0];
    *ret1 = out[1];
    *ret2 = out[2];
  });
}
