// Compares the runtime's SLEEF entry points with libtorch's own SLEEF, lane by lane.
//
//   vector_math_probe RUNTIME.so PREFIX LIBTORCH_CPU.so NAME:ARITY...
//   vector_math_probe RUNTIME.so PREFIX --exp-sweep      (the runtime's own vector float exp)
//
// Built once per width: -mavx512f for the f16/d8 names, -mavx2 -mfma for the f8/d4 ones (so the
// AVX2 build runs on a CPU without AVX-512); the caller passes each build the names of its width.
// For each name: PREFIX+NAME from the runtime, NAME from libtorch_cpu, both called on the same
// vectors (every lane a different input: specials, [-1, 1], [-20, 20], magnitudes 1e-30..1e30 of
// either sign). Prints one line per name: "NAME max_ulp worst_a worst_b nan_mismatches
// their_overflows" (the last: lanes where libtorch's SLEEF overflowed to inf and the C library did
// not; left out of max_ulp). Exit 2 on a
// missing symbol or a name of the other width.
#include <dlfcn.h>
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using Int = int32_t;
};
template <>
struct Bits<double> {
  using Int = int64_t;
};

// Distance in units in the last place: the IEEE bit patterns mapped to one ordered integer line.
template <class T>
double ulp_distance(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  if (a == b) return 0;
  using Int = typename Bits<T>::Int;
  Int ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  const Int top = static_cast<Int>(Int{1} << (sizeof(Int) * 8 - 1));
  if (ia < 0) ia = static_cast<Int>(top - ia);
  if (ib < 0) ib = static_cast<Int>(top - ib);
  const __int128 d = static_cast<__int128>(ia) - static_cast<__int128>(ib);  // exact for doubles too
  return static_cast<double>(d < 0 ? -d : d);
}

template <class T>
std::vector<T> inputs(size_t count, uint64_t seed) {
  const T specials[] = {T(0), -T(0), T(1), T(-1), T(0.5), T(-0.5), T(2), T(1e-7), T(-1e-7), T(88), T(-88), T(100),
                        T(-104), T(3.14159265358979), INFINITY, -INFINITY, NAN};
  std::vector<T> out(std::begin(specials), std::end(specials));
  uint64_t s = seed;
  auto next = [&s] {  // splitmix64: reproducible, no <random> differences between libraries
    s += 0x9E3779B97F4A7C15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  };
  while (out.size() < count) {
    const double u = next(), v = next();
    switch (out.size() % 3) {
      case 0: out.push_back(static_cast<T>(2 * u - 1)); break;
      case 1: out.push_back(static_cast<T>(40 * u - 20)); break;
      default: out.push_back(static_cast<T>((v < 0.5 ? -1 : 1) * std::pow(10.0, 60 * u - 30)));
    }
  }
  return out;
}

struct Result {
  double max_ulp = 0;
  double worst_a = 0, worst_b = 0;
  int nan_mismatches = 0;
  int their_overflows = 0;  // libtorch's SLEEF gave +-inf where the C library's result is finite
};

template <class V, class T>
void compare(void* ours, void* theirs, int arity, Result& r) {
  constexpr size_t lanes = sizeof(V) / sizeof(T);
  const std::vector<T> a = inputs<T>(4096, 1), b = inputs<T>(4096, 2);
  for (size_t at = 0; at + lanes <= a.size(); at += lanes) {
    V va, vb, got, want;
    std::memcpy(&va, &a[at], sizeof va);
    std::memcpy(&vb, &b[at + lanes < b.size() ? at + lanes : 0], sizeof vb);  // b's lanes shifted: unrelated pairs
    if (arity == 1) {
      got = reinterpret_cast<V (*)(V)>(ours)(va);
      want = reinterpret_cast<V (*)(V)>(theirs)(va);
    } else {
      got = reinterpret_cast<V (*)(V, V)>(ours)(va, vb);
      want = reinterpret_cast<V (*)(V, V)>(theirs)(va, vb);
    }
    T g[lanes], w[lanes], x[lanes], y[lanes];
    std::memcpy(g, &got, sizeof got);
    std::memcpy(w, &want, sizeof want);
    std::memcpy(x, &va, sizeof va);
    std::memcpy(y, &vb, sizeof vb);
    for (size_t i = 0; i < lanes; ++i) {
      if (std::isinf(w[i]) && std::isfinite(g[i]) && std::isfinite(x[i]) && std::isfinite(y[i])) {
        ++r.their_overflows;  // SLEEF's asinhf/acoshf square x first: inf beyond ~1.8e19
        continue;
      }
      const double d = ulp_distance(g[i], w[i]);
      if (std::isnan(g[i]) != std::isnan(w[i])) ++r.nan_mismatches;
      if (d > r.max_ulp) {
        r.max_ulp = d;
        r.worst_a = x[i];
        r.worst_b = y[i];
      }
    }
  }
}

}  // namespace

// Float exp against the correctly rounded result ((float)exp(double)), for every 97th float bit
// pattern (44 million inputs: both signs, subnormals, infinities, NaNs). Prints "NAME max_ulp worst".
template <class V>
int exp_sweep(void* runtime, const char* prefix, const char* name) {
  constexpr int lanes = sizeof(V) / sizeof(float);
  auto fn = reinterpret_cast<V (*)(V)>(dlsym(runtime, (std::string(prefix) + name).c_str()));
  if (!fn) return 2;
  double worst_ulp = 0;
  float worst = 0;
  for (uint64_t bits = 0; bits + 97 * lanes <= 0xFFFFFFFFull; bits += 97 * lanes) {
    float x[lanes], y[lanes];
    for (int i = 0; i < lanes; ++i) {
      const uint32_t b = static_cast<uint32_t>(bits + 97 * i);
      std::memcpy(&x[i], &b, 4);
    }
    V v;
    std::memcpy(&v, x, sizeof v);
    v = fn(v);
    std::memcpy(y, &v, sizeof v);
    for (int i = 0; i < lanes; ++i) {
      const double d = ulp_distance(y[i], static_cast<float>(std::exp(static_cast<double>(x[i]))));
      if (d > worst_ulp) worst_ulp = d, worst = x[i];
    }
  }
  std::printf("%s %.17g %.9g\n", name, worst_ulp, worst);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[3]) == "--exp-sweep") {
    void* runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!runtime) return 2;
#ifdef __AVX512F__
    return exp_sweep<__m512>(runtime, argv[2], "Sleef_expf16_u10");
#else
    return exp_sweep<__m256>(runtime, argv[2], "Sleef_expf8_u10");
#endif
  }
  if (argc < 4) {
    std::fprintf(stderr, "usage: vector_math_probe RUNTIME PREFIX LIBTORCH_CPU NAME:ARITY...\n");
    return 2;
  }
  void* runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void* torch = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
  if (!runtime || !torch) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  for (int i = 4; i < argc; ++i) {
    const std::string spec = argv[i];
    const std::string name = spec.substr(0, spec.find(':'));
    const int arity = std::stoi(spec.substr(spec.find(':') + 1));
    void* ours = dlsym(runtime, (argv[2] + name).c_str());
    void* theirs = dlsym(torch, name.c_str());
    if (!ours || !theirs) {
      std::fprintf(stderr, "%s: missing in %s\n", name.c_str(), ours ? "libtorch_cpu" : "the runtime");
      return 2;
    }
    // The width is the name's: Sleef_<stem><f16|d8|f8|d4>[_<accuracy>].
    const std::string stem = name.substr(0, name.find('_', 6));
    auto ends = [&stem](const char* w) { return stem.size() > 3 && stem.compare(stem.size() - std::strlen(w), std::string::npos, w) == 0; };
    Result r;
#ifdef __AVX512F__
    if (ends("f16")) compare<__m512, float>(ours, theirs, arity, r);
    else if (ends("d8")) compare<__m512d, double>(ours, theirs, arity, r);
#else
    if (ends("f8")) compare<__m256, float>(ours, theirs, arity, r);
    else if (ends("d4")) compare<__m256d, double>(ours, theirs, arity, r);
#endif
    else {
      std::fprintf(stderr, "%s: not of this build's width\n", name.c_str());
      return 2;
    }
    std::printf("%s %.17g %.17g %.17g %d %d\n", name.c_str(), r.max_ulp, r.worst_a, r.worst_b, r.nan_mismatches,
                r.their_overflows);
  }
  return 0;
}
