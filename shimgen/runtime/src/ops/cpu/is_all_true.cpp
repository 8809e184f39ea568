// aten::_is_all_true (no C shim: served by the proxy executor): a 0-d bool tensor, true when every
// element of the bool tensor self is true (an empty one: true). What torch.export leaves for a
// tensor condition a model checks (`torch._check(mask.all())`, transformers' shape asserts of
// SigLIP2 and OneFormer), feeding the graph's _assert_async. A non-bool self is refused with
// torch's own (internal-assert) condition.
#include <string>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_is_all_true(AtenTensorHandle self) {
  const Tensor& t = cpu_tensor(self, "self");
  SHIMGEN_REQUIRE(t.dtype == kBool, std::string("_is_all_true: expected self.scalar_type() == at::kBool, got ") +
                                        scalar_type_name(t.dtype));
  bool all = true;
  const auto* p = reinterpret_cast<const uint8_t*>(t.data());
  for_each_element(t, [&](int64_t at) { all = all && p[at] != 0; });
  auto out = empty_tensor(std::vector<int64_t>{}, std::vector<int64_t>{}, kBool, kCPU, -1);
  *reinterpret_cast<uint8_t*>(out->data()) = all ? 1 : 0;
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
