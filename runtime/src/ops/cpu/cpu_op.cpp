// The helpers of cpu_op.h.
#include "cpu_op.h"

namespace shimgen::rt::cpu {

// IEEE binary16 <-> binary32, bit-exact with c10::Half (round to nearest even, NaN kept quiet).
Half::Half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Add 0.5 (as float) so the FPU's own round-to-nearest-even does the rounding.
    float a;
    std::memcpy(&a, &abs, 4);
    a += 0.5f;
    uint32_t r;
    std::memcpy(&r, &a, 4);
    bits = static_cast<uint16_t>(sign | (r - 0x3f000000u));
    return;
  }
  const uint32_t mantissa_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xc8000fffu + mantissa_odd;  // rebias exponent (-112 << 23) and round
  bits = static_cast<uint16_t>(sign | (rounded >> 13));
}

Half::operator float() const {
  const uint32_t sign = (static_cast<uint32_t>(bits) & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {  // subnormal: value = mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&out, &magnitude, 4);
    out |= sign;
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

bool is_integral_dtype(int32_t dtype) noexcept {
  switch (dtype) {
    case kBool: case kUInt8: case kInt8: case kInt16: case kInt32: case kInt64: case kUInt16: case kUInt32:
    case kUInt64:
      return true;
    default:
      return false;
  }
}

const Tensor& cpu_tensor(AtenTensorHandle handle, const char* what) {
  const Tensor* t = unwrap(handle, what);
  SHIMGEN_REQUIRE(t->storage->device_type == kCPU, std::string(what) + " is not a CPU tensor");
  return *t;
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* what) {
  const int64_t extent = rank == 0 ? 1 : rank;
  SHIMGEN_REQUIRE(dim >= -extent && dim < extent, std::string(what) + " " + std::to_string(dim) +
                                                      " is out of range for a " + std::to_string(rank) + "-d tensor");
  return dim < 0 ? dim + extent : dim;
}

void require_out(const AtenTensorHandle* ret, const char* what) {
  SHIMGEN_REQUIRE(ret != nullptr, std::string(what) + " is null");
}

}  // namespace shimgen::rt::cpu
