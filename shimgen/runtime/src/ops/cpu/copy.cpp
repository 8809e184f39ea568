// aten::copy (the functional copy_: the FNO writes its kept modes into a slice of the output
// spectrum) into a complex tensor: torch 2.13's copy is clone_preserve_strides(self) then
// copy_(src), so the result has self's sizes, strides and storage offset on a copy of self's whole
// storage (a plain clone when self overlaps itself) and holds src broadcast to self's shape,
// converted to self's dtype (a complex128 src rounded, a real one given 0i). Inductor copies real
// tensors itself. torch's broadcast message.
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// src's strides seen at dst's sizes (right-aligned, 0 where src broadcasts); torch's copy_ message
// when src does not broadcast to them.
std::vector<int64_t> broadcast_into(const Tensor& dst, const Tensor& src) {
  const size_t rank = dst.sizes.size(), lead = rank >= src.sizes.size() ? rank - src.sizes.size() : 0;
  SHIMGEN_REQUIRE(src.sizes.size() <= rank, "copy: src has " + std::to_string(src.sizes.size()) +
                                                " dims, more than self's " + std::to_string(rank));
  std::vector<int64_t> strides(rank, 0);
  for (size_t i = 0; i < src.sizes.size(); ++i) {
    const int64_t want = dst.sizes[lead + i], have = src.sizes[i];
    SHIMGEN_REQUIRE(have == want || have == 1, "The size of tensor a (" + std::to_string(want) +
                                                   ") must match the size of tensor b (" + std::to_string(have) +
                                                   ") at non-singleton dimension " + std::to_string(lead + i));
    strides[lead + i] = have == 1 ? 0 : src.strides[i];
  }
  return strides;
}

}  // namespace

AtenTensorHandle cpu_complex_copy(AtenTensorHandle self, AtenTensorHandle src) {
  const Tensor& dst = cpu_tensor(self, "self");
  const Tensor& from = cpu_tensor(src, "src");
  if (!elementwise::is_complex(dst.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("copy: dtype ") + scalar_type_name(dst.dtype) +
                                                " is not served (a complex self; inductor copies real tensors itself)");
  const std::vector<int64_t> from_strides = broadcast_into(dst, from);
  if (!elementwise::is_complex(from.dtype)) dispatch_real(from.dtype, "copy", [](auto) {});  // any real src
  auto out = clone_preserve_strides(dst);
  const std::vector<int64_t>* strides[2] = {&out->strides, &from_strides};
  elementwise::for_each(dst.sizes, strides, [&](const int64_t* at) {
    elementwise::write_complex(*out, at[0], elementwise::read_complex(from, at[1]));
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
