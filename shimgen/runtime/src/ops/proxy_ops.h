// The ops the proxy executor (proxy_executor.cpp) serves that have no C shim in torch: their CPU
// implementations live with the other ops under ops/cpu/, and are reached only through the
// executor. Each throws ShimError (fail / SHIMGEN_REQUIRE) on a bad argument; outputs are new handles
// the caller owns, stored only once every check passed. Nothing here is exported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../internal.h"

namespace shimgen::rt::proxy_ops {

// aten::median.dim: lower median along dim and its index (NaN wins: the first NaN of a line).
void cpu_median_dim(AtenTensorHandle self, int64_t dim, bool keepdim, AtenTensorHandle* values,
                    AtenTensorHandle* indices);
// aten::multinomial: num_samples int64 draws per row of self (1-d [n] or 2-d [rows, n]) from the
// categorical distribution its non-negative weights define.
AtenTensorHandle cpu_multinomial(AtenTensorHandle self, int64_t num_samples, bool replacement);
// aten::bincount: counts (int64) or summed weights (double, or weights' float dtype) of each value
// of a 1-d non-negative integer tensor, length max(max + 1, minlength).
AtenTensorHandle cpu_bincount(AtenTensorHandle self, AtenTensorHandle weights, int64_t minlength);
// prims::normal: a new contiguous tensor of `shape` of normal(mean, std) draws.
AtenTensorHandle cpu_normal(const std::vector<int64_t>& shape, double mean, double std, int32_t dtype);

// aten::_unique2: the sorted distinct values of self (flattened), and when asked the inverse
// (self's shape: the position of each element's value) and the counts; an output not asked for is
// an empty int64 [0], as torch returns it.
void cpu_unique2(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                 AtenTensorHandle* inverse, AtenTensorHandle* counts);

// aten::unique_consecutive (dim None): self flattened with each run of equal values collapsed to
// one (CTC-style decoding); inverse (self's shape) and counts when asked, else empty int64 [0].
void cpu_unique_consecutive(AtenTensorHandle self, bool return_inverse, bool return_counts, AtenTensorHandle* values,
                            AtenTensorHandle* inverse, AtenTensorHandle* counts);
// aten::poisson: a new tensor of self's shape and dtype, element i a Poisson draw with rate self[i].
AtenTensorHandle cpu_poisson(AtenTensorHandle self);

// aten::complex: real + i imag, broadcast (float32 -> complex64, float64 -> complex128).
AtenTensorHandle cpu_complex(AtenTensorHandle real, AtenTensorHandle imag);
// aten::_fft_c2r: the inverse of a onesided real FFT (torch.fft.irfft/irfftn): c2c inverse over
// dim[:-1], then a Hermitian complex-to-real transform of the last dim to last_dim_size points.
AtenTensorHandle cpu_fft_c2r(AtenTensorHandle self, const std::vector<int64_t>& dim, int64_t normalization,
                             int64_t last_dim_size);

// aten::index_add: a new contiguous copy of self with slice i of source times alpha added to slice
// index[i] along dim, in index order (bfloat16 reaches the proxy; any real dtype is served).
AtenTensorHandle cpu_index_add(AtenTensorHandle self, int64_t dim, AtenTensorHandle index, AtenTensorHandle source,
                               double alpha);

// The elementwise special functions (special_functions.cpp: digamma, polygamma, special_ndtri,
// special_i0e, igamma, special_zeta, the Bessel functions and orthogonal polynomials, ...): the
// ops torch's inductor has no Triton code for and leaves to aten on CUDA. One table; find_special
// gives a target's entry (null: not one of them), special_targets every target.
struct SpecialFunction;
const SpecialFunction* find_special(const std::string& target);
std::vector<std::string> special_targets();
const char* special_argument(const SpecialFunction& fn, int which);  // the schema's name of operand 0 / 1
bool special_is_binary(const SpecialFunction& fn);
// fn over a (and b, broadcast, when binary; polygamma: order n) on the host: a new tensor of the
// operands' float dtype (float32/64, bfloat16, float16; binary: one dtype), torch's elementwise layout.
AtenTensorHandle cpu_special(const SpecialFunction& fn, AtenTensorHandle a, AtenTensorHandle b, int64_t n);

}  // namespace shimgen::rt::proxy_ops
