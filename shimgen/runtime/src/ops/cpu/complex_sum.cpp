// aten::sum (all dims), aten::sum.dim_IntList, aten::mean and aten::mean.dim of a complex tensor
// (inductor reduces real tensors itself and falls back for complex ones: a complex layer's sum
// over features or modes). dims: none or empty reduce every dim; torch's wrapping, its duplicate
// check and message; keepdim keeps them as size 1. The result is a new contiguous tensor (torch's
// reduction meta) of `dtype` when given (complex64/128, or float32/64: the real part, as torch
// casts before it sums), else self's. mean divides the sum by the count of reduced elements (NaN
// for none, as torch).
//
// Precision: each sum is Neumaier's compensated sum of the real and of the imaginary parts in
// double (error within 2 ulp of the exact sum plus a term of order n 2^-106 sum |x|), rounded once
// to the dtype: torch's cascade sum accumulates in complex<float> for complex64 and in double for
// complex128, both less accurate.
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// Neumaier's variant of Kahan summation: the running sum and the lost low-order parts.
struct Compensated {
  double sum = 0.0, lost = 0.0;
  void add(double x) {
    const double t = sum + x;
    lost += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  // An infinite or NaN sum stays as the plain sum has it (the compensation would turn inf into NaN).
  double value() const { return std::isfinite(sum) ? sum + lost : sum; }
};

}  // namespace

AtenTensorHandle cpu_complex_sum(AtenTensorHandle self, const std::vector<int64_t>* dims, bool keepdim, int32_t dtype,
                                 bool mean) {
  const Tensor& in = cpu_tensor(self, "self");
  const char* op = mean ? "mean" : "sum";
  if (!elementwise::is_complex(in.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": dtype " + scalar_type_name(in.dtype) +
                                                " is not served (complex64/128; inductor reduces real tensors itself)");
  const int32_t out_dtype = dtype < 0 ? in.dtype : dtype;
  if (!elementwise::is_complex(out_dtype) && out_dtype != kFloat32 && out_dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": result dtype " + scalar_type_name(out_dtype) +
                                                " is not served (complex64/128, float32/64)");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), dims == nullptr || dims->empty());
  if (dims != nullptr) {
    for (int64_t dim : *dims) {
      const size_t d = static_cast<size_t>(wrap_dim(dim, rank, "dim"));
      if (rank == 0) continue;  // a 0-d self: dim 0 / -1 names the tensor itself
      SHIMGEN_REQUIRE(!reduced[d], "dim " + std::to_string(d) + " appears multiple times in the list of dims");
      reduced[d] = true;
    }
  }
  // The result's shape, and self seen as [kept dims..., reduced dims...] for the walk.
  std::vector<int64_t> out_sizes, kept_sizes, kept_strides, red_sizes, red_strides;
  int64_t count = 1;
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    if (reduced[d]) {
      red_sizes.push_back(in.sizes[d]);
      red_strides.push_back(in.strides[d]);
      count *= in.sizes[d];
      if (keepdim) out_sizes.push_back(1);
    } else {
      kept_sizes.push_back(in.sizes[d]);
      kept_strides.push_back(in.strides[d]);
      out_sizes.push_back(in.sizes[d]);
    }
  }
  auto out = empty_tensor(out_sizes, contiguous_strides_of(out_sizes), out_dtype, kCPU, -1);
  const std::vector<int64_t> dense = contiguous_strides_of(kept_sizes);
  const std::vector<int64_t>* outer[2] = {&dense, &kept_strides};
  elementwise::for_each(kept_sizes, outer, [&](const int64_t* at) {
    Compensated re, im;
    if (count > 0) {
      const std::vector<int64_t>* inner[1] = {&red_strides};
      elementwise::for_each(red_sizes, inner, [&](const int64_t* k) {
        const std::complex<double> z = elementwise::read_complex(in, at[1] + k[0]);
        re.add(z.real());
        im.add(z.imag());
      });
    }
    std::complex<double> total(re.value(), im.value());
    if (mean) total /= static_cast<double>(count);  // 0 / 0: NaN, as torch's mean of nothing
    if (elementwise::is_complex(out_dtype)) elementwise::write_complex(*out, at[0], total);
    else if (out_dtype == kFloat32) reinterpret_cast<float*>(out->data())[at[0]] = static_cast<float>(total.real());
    else reinterpret_cast<double*>(out->data())[at[0]] = total.real();
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
