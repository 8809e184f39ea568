// What the CUDA FFTs (_fft_c2c.cu, _fft_r2c.cu) share: the CPU op on a host copy of self
// (host_staged.h; cuFFT is not among the runtime's dependencies), its result copied into the layout
// torch's fake tensors give on a CUDA device (cuFFT's plan: ../cpu/fft.h cuda_c2c_strides /
// cuda_r2c_strides), which inductor compiles against. Nothing here is exported.
#pragma once

#include "../cpu/fft.h"
#include "host_staged.h"

namespace shimgen::rt::cuda_ops {

// *ret0 = cpu(host copy of self, &result) moved to the device in layout(self, dims) (dims: dim
// wrapped and checked).
template <typename Layout, typename Cpu> void staged_fft(const char* what, AtenTensorHandle self, const int64_t* dim,
                                                         int64_t dim_len, AtenTensorHandle* ret0, Layout&& layout,
                                                         Cpu&& cpu) {
  HostStaged s;
  require_cuda(self, "self");
  const Tensor& in = *unwrap(self, "self");
  s.set_layout(0, layout(in, cpu::fft::wrapped_dims(dim, dim_len, static_cast<int64_t>(in.sizes.size()))));
  s.run(what, {ret0}, [&](AtenTensorHandle* r) { return cpu(s.host(self), &r[0]); });
}

}  // namespace shimgen::rt::cuda_ops
