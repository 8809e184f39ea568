// aten::slice_scatter into a complex tensor (the functional form of out[..., a:b] = src: the FNO
// writes its two corners of kept modes into the output spectrum). torch's kernel: the result is
// clone_preserve_strides(self), a copy of self's whole storage seen with self's sizes, strides and
// storage offset (or, when self overlaps itself, a clone), with the slice (views::slice's rule)
// replaced by src, converted to self's dtype. Inductor scatters into real tensors itself. torch's
// size check and message.
#include <string>

#include "../proxy_ops.h"
#include "../views.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

std::string list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

AtenTensorHandle cpu_complex_slice_scatter(AtenTensorHandle self, AtenTensorHandle src, int64_t dim,
                                           const int64_t* start, const int64_t* end, int64_t step) {
  const Tensor& in = cpu_tensor(self, "self");
  const Tensor& from = cpu_tensor(src, "src");
  if (!elementwise::is_complex(in.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("slice_scatter: dtype ") + scalar_type_name(in.dtype) +
                                                " is not served (a complex self; inductor scatters into real tensors)");
  if (!elementwise::is_complex(from.dtype)) dispatch_real(from.dtype, "slice_scatter", [](auto) {});
  auto out = clone_preserve_strides(in);
  const auto part = views::slice(*out, dim, start, end, step);
  SHIMGEN_REQUIRE(part->sizes == from.sizes, "expected src to have a size equal to the slice of self. src size = " +
                                                 list(from.sizes) + ", slice size = " + list(part->sizes));
  const std::vector<int64_t>* strides[2] = {&part->strides, &from.strides};
  elementwise::for_each(from.sizes, strides, [&](const int64_t* at) {
    elementwise::write_complex(*part, at[0], elementwise::read_complex(from, at[1]));
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
