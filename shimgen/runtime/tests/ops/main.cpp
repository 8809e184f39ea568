// Runs the op tests registered by the <op>_test.cpp files: `shimgen_runtime_op_tests NAME|all`.
#include <cstdio>

#include "op_test.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s all|NAME\n", argv[0]);
    return 2;
  }
  const std::string wanted = argv[1];
  int ran = 0;
  for (auto& [name, body] : op_test::registry()) {
    if (wanted != "all" && wanted != name) continue;
    const int before = g_failures;
    body();
    std::printf("%s: %s\n", name.c_str(), g_failures == before ? "ok" : "FAIL");
    ++ran;
  }
  if (ran == 0) {
    std::fprintf(stderr, "no test named %s\n", wanted.c_str());
    return 2;
  }
  std::printf("%d op tests, %d failed expectations\n", ran, g_failures);
  return g_failures ? 1 : 0;
}
