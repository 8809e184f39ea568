/* A consumer of zstd compiled against zstd.h: reports which loaded library its calls bind to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "zstd.h"

/* The file that provides the ZSTD_compress this library calls (through its GOT, as a call does). */
const char *probe_provider(void) {
  Dl_info info;
  void *called = (void *)&ZSTD_compress;
  if (!dladdr(called, &info) || !info.dli_fname) return "?";
  return info.dli_fname;
}

unsigned probe_version(void) { return ZSTD_versionNumber(); }

/* 0 when a compress/decompress round trip through the bound library gives the input back. */
int probe_roundtrip(void) {
  char input[4096], packed[8192], unpacked[4096];
  for (size_t i = 0; i < sizeof input; i++) input[i] = (char)("shimgen"[i % 7] + i / 512);
  size_t n = ZSTD_compress(packed, sizeof packed, input, sizeof input, 3);
  if (ZSTD_isError(n)) return 1;
  size_t m = ZSTD_decompress(unpacked, sizeof unpacked, packed, n);
  if (ZSTD_isError(m) || m != sizeof input) return 2;
  return memcmp(input, unpacked, sizeof input) == 0 ? 0 : 3;
}
