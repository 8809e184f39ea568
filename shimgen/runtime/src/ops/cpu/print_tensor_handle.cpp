// aoti_torch_print_tensor_handle: what a model compiled with
// aot_inductor.debug_intermediate_value_printer="2" calls before and after each kernel. Prints to
// stdout, as torch's own does: the message, the values of a small tensor (64 elements or fewer),
// then numel, dtype, mean/min/max (real dtypes; complex and float8 tensors get no summary), device,
// sizes, strides and contiguity. A CUDA tensor is read through a host copy. Never fails the model:
// a tensor it cannot read is reported in the printout.
#include <cstdio>
#include <limits>
#include <sstream>

#include "cpu_op.h"
#include "host_view.h"
#include "shimgen_runtime/shim.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

constexpr int64_t kMaxValuesPrinted = 64;  // torch's AOTI_TORCH_MAX_NUMEL_TO_PRINT

const char* dtype_name(int32_t dtype) {
  switch (dtype) {
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kFloat16: return "c10::Half";
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kComplex64: return "c10::complex<float>";
    case kComplex128: return "c10::complex<double>";
    case kBool: return "bool";
    case kBFloat16: return "c10::BFloat16";
    default: return "(another dtype)";
  }
}

std::string list(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

// The tensor's values as doubles in row-major order (real dtypes), read from a host tensor.
template <class T> std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.numel()));
  const auto* base = reinterpret_cast<const T*>(t.data());
  for_each_element(t, [&](int64_t at) { out.push_back(static_cast<double>(value_of(base[at]))); });
  return out;
}

std::string describe(AtenTensorHandle self, const char* msg) {
  std::ostringstream s;
  s << "[" << (msg != nullptr ? std::string("  ") + msg : std::string()) << "  ]:\n";
  const Tensor& t = *unwrap(self, "self");
  const HostView host(self);
  const int64_t n = t.numel();
  std::vector<double> values;
  bool real = true;
  try {
    dispatch_real(t.dtype, "print", [&](auto type) { values = values_of<decltype(type)>(*host); });
  } catch (const ShimError&) {
    real = false;  // complex, float8, unsigned wide: no summary
  }
  if (real && n <= kMaxValuesPrinted) {
    s << "[";
    for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
    s << "]\n";
  }
  s << "Number of elements: " << n << "\nDtype: " << dtype_name(t.dtype) << "\n";
  if (real && n > 0) {
    double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
      sum += v;
      lo = v < lo ? v : lo;  // NaN never wins a comparison: min/max of the rest, mean NaN
      hi = v > hi ? v : hi;
    }
    s << "Mean value: " << sum / static_cast<double>(n) << "\nMin value: " << lo << "\nMax value: " << hi << "\n";
  }
  s << "Device: "
    << (t.storage->device_type == kCPU ? std::string("cpu") : "cuda:" + std::to_string(t.storage->device_index))
    << "\nSize: " << list(t.sizes) << "\nStride: " << list(t.strides)
    << "\nLayout: Strided\nIs contiguous: " << (t.is_contiguous() ? 1 : 0) << "\n\n";
  return s.str();
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char* msg) {
  std::string text;
  try {
    text = describe(self, msg);
  } catch (const std::exception& e) {
    text = std::string("[  ") + (msg != nullptr ? msg : "") + "  ]: cannot print this tensor: " + e.what() + "\n\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}
