/* A consumer of libcrypto compiled against <openssl/sha.h> (BoringSSL's or the system OpenSSL's):
 * reports which loaded library its calls bind to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

/* The file that provides the SHA256 this library calls (through its GOT, as a call does). */
const char *probe_provider(void) {
  Dl_info info;
  void *called = (void *)&SHA256;
  if (!dladdr(called, &info) || !info.dli_fname) return "?";
  return info.dli_fname;
}

/* OpenSSL's version number as the bound library reports it (BoringSSL answers with its own). */
unsigned probe_version(void) { return (unsigned)OpenSSL_version_num(); }

/* 0 when SHA-256 of "abc" through the bound library is the FIPS 180-2 test vector. */
int probe_roundtrip(void) {
  static const unsigned char expected[SHA256_DIGEST_LENGTH] = {
      0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
      0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  unsigned char digest[SHA256_DIGEST_LENGTH];
  if (!SHA256((const unsigned char *)"abc", 3, digest)) return 1;
  return memcmp(digest, expected, sizeof digest) == 0 ? 0 : 2;
}
