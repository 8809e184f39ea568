// aoti_torch_cpu_uniform: aten.uniform, the functional form of x.uniform_(from, to) that inductor falls
// back to (in-model initialisation and noise: torch.empty(n, m).uniform_(a, b)). The generated code
// takes ret0 as the op's result; self only gives the shape, dtype and layout, its values are not read
// and it is not written. ret0 is a new tensor of self's shape and dtype with self's strides when they
// are dense, else dense strides in self's order (torch's clone), every element an independent draw
// from the runtime's engine (random.cpp): torch's distribution, not its stream. The draw is torch's
// CPU uniform kernel: from and to rounded to the dtype, x = 24 random bits * 2^-24 (53 and double for
// float64), x * (to - from) + from in float, rounded to the dtype, and a value that rounded up to `to`
// replaced by `from` (so every value lies in [from, to); from == to fills `from`). Complex dtypes draw
// both parts (torch views them as real). Torch's checks and messages (check_uniform_bounds): from and
// to within the dtype's finite range, from <= to, to - from finite in the dtype. An explicit generator
// is refused.
#include <sstream>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// What check_uniform_bounds prints and uses for each element type: TypeMeta's name, c10's
// ScalarType name, the largest finite value.
template <class T> struct Kind;
template <> struct Kind<float> {
  static constexpr const char* meta = "float";
  static constexpr const char* scalar = "Float";
  static constexpr double max = 3.4028234663852886e38;
};
template <> struct Kind<double> {
  static constexpr const char* meta = "double";
  static constexpr const char* scalar = "Double";
  static constexpr double max = 1.7976931348623157e308;
};
template <> struct Kind<BFloat16> {
  static constexpr const char* meta = "c10::BFloat16";
  static constexpr const char* scalar = "BFloat16";
  static constexpr double max = 3.3895313892515355e38;
};
template <> struct Kind<Half> {
  static constexpr const char* meta = "c10::Half";
  static constexpr const char* scalar = "Half";
  static constexpr double max = 65504.0;
};

std::string num(double v) {  // as torch's messages print a double (ostream defaults)
  std::ostringstream s;
  s << v;
  return s.str();
}

template <class T> void check_bounds(double from, double to) {
  const double max = Kind<T>::max;
  SHIMGEN_REQUIRE(from >= -max && from <= max, std::string("from is out of bounds for ") + Kind<T>::meta);
  SHIMGEN_REQUIRE(to >= -max && to <= max, std::string("to is out of bounds for ") + Kind<T>::meta);
  SHIMGEN_REQUIRE(from <= to,
                  "uniform_ expects to return a [from, to) range, but found from=" + num(from) + " > to=" + num(to));
  SHIMGEN_REQUIRE(to - from <= max, std::string("uniform_ expects to-from <= std::numeric_limits<") + Kind<T>::scalar +
                                        ">::max(), but found to=" + num(to) + " and from=" + num(from) +
                                        " which result in to-from to exceed the limit");
}

// Fills `parts` values of T per element of out (2: a complex tensor's real and imaginary parts).
template <class T> void fill(const Tensor& out, int64_t parts, double from, double to) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;  // torch's opmath type
  constexpr int digits = std::is_same_v<T, double> ? 53 : 24;
  constexpr A scale = static_cast<A>(1.0 / static_cast<double>(uint64_t{1} << digits));
  const T first = T(static_cast<A>(from)), last = T(static_cast<A>(to));
  const A lo = static_cast<A>(value_of(first)), hi = static_cast<A>(value_of(last));
  auto* dst = reinterpret_cast<T*>(out.data());
  std::lock_guard<std::mutex> lock(random_mutex());
  for_each_element(out, [&](int64_t at) {
    for (int64_t p = 0; p < parts; ++p) {
      const A x = static_cast<A>(random_engine()() >> (64 - digits)) * scale;
      const T v = T(x * (hi - lo) + lo);
      dst[at * parts + p] = static_cast<A>(value_of(v)) == hi ? first : v;
    }
  });
}

template <class T> void draw(const Tensor& in, double from, double to, AtenGeneratorHandle* generator, int64_t parts,
                             AtenTensorHandle* ret0) {
  check_bounds<T>(from, to);
  if (generator != nullptr && *generator != nullptr)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "uniform: an explicit generator is not supported");
  const std::vector<int64_t> strides =
      in.is_non_overlapping_and_dense() ? in.strides : dense_strides_like(in.sizes, in.strides);
  auto out = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
  fill<T>(*out, parts, from, to);
  *ret0 = wrap(std::move(out));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_uniform(AtenTensorHandle self, double from, double to,
                                                                  AtenGeneratorHandle* generator,
                                                                  AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    switch (in.dtype) {
      case kFloat32: draw<float>(in, from, to, generator, 1, ret0); break;
      case kFloat64: draw<double>(in, from, to, generator, 1, ret0); break;
      case kBFloat16: draw<BFloat16>(in, from, to, generator, 1, ret0); break;
      case kFloat16: draw<Half>(in, from, to, generator, 1, ret0); break;
      case kComplex64: draw<float>(in, from, to, generator, 2, ret0); break;
      case kComplex128: draw<double>(in, from, to, generator, 2, ret0); break;
      default:
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
             std::string("\"check_uniform_bounds\" not implemented for '") + scalar_type_name(in.dtype) + "'");
    }
  });
}
