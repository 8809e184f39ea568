// The device scatter shared by aoti_torch_cuda_scatter_src_out, scatter_value_out and
// scatter_reduce_two_out (scatter.cu). CUDA builds only; nothing here is exported.
#pragma once

#include <cstdint>

#include "../../internal.h"

namespace shimgen::rt::cuda_ops {

enum class ScatterMode { kAssign, kSum, kProd, kMean, kMax, kMin };

// sum, prod, mean, amax, amin; anything else is refused (InvalidArgument).
ScatterMode parse_scatter_reduce(const char* reduce);

// out = self, then for every element of index: out[index along dim] = src (kAssign; `value` when
// src is null), or out[...] <reduce>= src, each written position starting from self's value
// (include_self) or from src's values alone. out may be self. Every argument and every index is
// checked before out is written (the index check reads them back: one host synchronisation).
void scatter_device(AtenTensorHandle out, AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                    AtenTensorHandle src, double value, ScatterMode mode, bool include_self);

}  // namespace shimgen::rt::cuda_ops
