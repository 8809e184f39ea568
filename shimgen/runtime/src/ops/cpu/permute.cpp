// aoti_torch_cpu_permute: a view of self with its dims reordered (sizes[i] = self.sizes[dims[i]]),
// sharing self's storage. Inductor generates permutes itself; it falls back for dtypes its kernels
// do not take (complex tensors, around FFTs). views::permute serves the CUDA shim too.
#include <algorithm>

#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

std::unique_ptr<Tensor> shimgen::rt::views::permute(const Tensor& in, const int64_t* dims, int64_t dims_len_) {
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  SHIMGEN_REQUIRE(dims_len_ == rank && (dims != nullptr || rank == 0),
                  "permute: number of dims don't match in permute (" + std::to_string(dims_len_) + " for rank " +
                      std::to_string(rank) + ")");
  std::vector<int64_t> order;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = wrap_dim(dims[i], rank, "dims");
    SHIMGEN_REQUIRE(std::find(order.begin(), order.end(), d) == order.end(), "permute: repeated dim in permute");
    order.push_back(d);
  }
  auto view = alias(in);
  for (size_t i = 0; i < order.size(); ++i) {
    view->sizes[i] = in.sizes[static_cast<size_t>(order[i])];
    view->strides[i] = in.strides[static_cast<size_t>(order[i])];
  }
  return view;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_permute(AtenTensorHandle self, const int64_t* dims,
                                                                  int64_t dims_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::permute(in, dims, dims_len_));
  });
}
