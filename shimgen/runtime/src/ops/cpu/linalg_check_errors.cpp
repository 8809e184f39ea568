// aten::_linalg_check_errors (no C shim: served by the proxy executor): what torch.linalg's
// functions run after a LAPACK call when they must raise. info: int32 LAPACK codes, one per batch
// item (0-d for one matrix); the first nonzero one fails with torch's message ("linalg.cholesky:
// The factorization could not be completed because the input is not positive-definite (...)"),
// which the model's run returns (code 2, shimgen_runtime_last_error()).
#include "../proxy_ops.h"
#include "linalg.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

void cpu_linalg_check_errors(AtenTensorHandle info, const std::string& api_name, bool is_matrix) {
  const Tensor& t = cpu_tensor(info, "info");
  SHIMGEN_REQUIRE(t.dtype == kInt32,
                  "_linalg_check_errors: info must be int32, got dtype code " + std::to_string(t.dtype));
  std::vector<int32_t> codes;
  codes.reserve(static_cast<size_t>(t.numel()));
  for_each_element(t, [&](int64_t at) { codes.push_back(reinterpret_cast<const int32_t*>(t.data())[at]); });
  linalg::check_infos(api_name, codes.data(), static_cast<int64_t>(codes.size()), is_matrix);
}

}  // namespace shimgen::rt::proxy_ops
