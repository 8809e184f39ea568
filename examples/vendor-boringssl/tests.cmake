# BoringSSL's own crypto gtest suites that need no test vectors (the sdist ships none), linked
# against the (prefixed) crypto library: crypto_test, as BoringSSL's CMakeLists.txt builds it from
# these sources, googletest from its third_party/ and crypto/test/'s support code. Left out of
# crypto/**/*_test.cc: the files that read test vectors (GetTestData, FileTestGTest), and two that
# compile to nothing in a shared-library build (impl_dispatch_test.cc, rand/urandom_test.cc).
set(gtest_dir "${BORINGSSL_SOURCE_DIR}/third_party/googletest")
add_library(boringssl_gtest STATIC "${gtest_dir}/googletest/src/gtest-all.cc" "${gtest_dir}/googlemock/src/gmock-all.cc")
target_include_directories(boringssl_gtest PUBLIC "${gtest_dir}/googletest/include" "${gtest_dir}/googlemock/include"
                                           PRIVATE "${gtest_dir}/googletest" "${gtest_dir}/googlemock")
target_link_libraries(boringssl_gtest PUBLIC Threads::Threads)

set(BORINGSSL_TEST_SOURCES
  crypto/abi_self_test.cc
  crypto/asn1/asn1_test.cc
  crypto/base64/base64_test.cc
  crypto/bio/bio_test.cc
  crypto/buf/buf_test.cc
  crypto/bytestring/bytestring_test.cc
  crypto/chacha/chacha_test.cc
  crypto/compiler_test.cc
  crypto/conf/conf_test.cc
  crypto/constant_time_test.cc
  crypto/cpu_arm_linux_test.cc
  crypto/crypto_test.cc
  crypto/curve25519/spake25519_test.cc
  crypto/dh/dh_test.cc
  crypto/digest/digest_test.cc
  crypto/dsa/dsa_test.cc
  crypto/err/err_test.cc
  crypto/evp/evp_extra_test.cc
  crypto/evp/pbkdf_test.cc
  crypto/fipsmodule/aes/gcm_test.cc
  crypto/fipsmodule/ec/p256_test.cc
  crypto/fipsmodule/service_indicator/service_indicator_test.cc
  crypto/fipsmodule/sha/sha_test.cc
  crypto/hrss/hrss_test.cc
  crypto/lhash/lhash_test.cc
  crypto/md5/md5_test.cc
  crypto/obj/obj_test.cc
  crypto/pem/pem_test.cc
  crypto/pkcs8/pkcs8_test.cc
  crypto/pool/pool_test.cc
  crypto/rand/fork_detect_test.cc
  crypto/rand/getentropy_test.cc
  crypto/rand/rand_test.cc
  crypto/refcount_test.cc
  crypto/rsa/rsa_test.cc
  crypto/self_test.cc
  crypto/spake2plus/spake2plus_test.cc
  crypto/stack/stack_test.cc
  crypto/thread_test.cc
  crypto/trust_token/trust_token_test.cc
  crypto/x509/tab_test.cc
  crypto/x509/x509_time_test.cc
  crypto/test/abi_test.cc
  crypto/test/file_test.cc
  crypto/test/file_test_gtest.cc
  crypto/test/file_util.cc
  crypto/test/test_data.cc
  crypto/test/test_util.cc
  crypto/test/wycheproof_util.cc
  crypto/test/gtest_main.cc
)
list(TRANSFORM BORINGSSL_TEST_SOURCES PREPEND "${BORINGSSL_SOURCE_DIR}/")
add_executable(crypto_test ${BORINGSSL_TEST_SOURCES})
target_link_libraries(crypto_test PRIVATE crypto boringssl_gtest)
