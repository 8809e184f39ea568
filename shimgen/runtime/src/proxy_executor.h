// The runtime's proxy executor: AOTInductor's path for ops without a C shim. The generated code
// calls aoti_torch_proxy_executor_call_function(executor, node, ints, tensors) with the dynamic
// arguments of extern node `node` flattened; the rest of the call (target, argument names, static
// values, outputs) is in the extern-kernel JSON packaged beside the model .so. The executor reads
// that JSON once, at open, and serves the targets in its table by calling the runtime's own shims.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "shimgen_runtime/types.h"

namespace shimgen::rt::proxy {

struct Executor;

void release(Executor* executor) noexcept;

// The targets this runtime serves through the proxy ("aten::topk", ...), for messages and docs.
std::vector<std::string> served_targets();

struct ExecutorDeleter {
  void operator()(Executor* executor) const noexcept { release(executor); }
};
using ExecutorPtr = std::unique_ptr<Executor, ExecutorDeleter>;

// Reads the extern-kernel JSON. Returns nullptr and sets *problem when the text is malformed or
// names a target this runtime does not serve (every such target is named).
ExecutorPtr load(const char* json, size_t size, std::string* problem);

// out[S, N] = input[S, K] grouped by expert times weight[E, K, N]: rows [offs[e-1], offs[e]) use
// weight[e] (offs: int32 or int64 cumulative row counts, on any device; read on the host). Each
// group is one GEMM through the device's mm_out shim; rows past offs[E-1] are zero. A new handle.
AtenTensorHandle grouped_mm(AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle offs);

}  // namespace shimgen::rt::proxy
