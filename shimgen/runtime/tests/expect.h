// The native test programs' one assertion: EXPECT(cond) reports a failed expectation with its
// file and line and counts it in g_failures; each program exits 1 when any failed.
#pragma once

#include <cstdio>

inline int g_failures = 0;  // one per test program (each is its own executable)

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)
