# shimgen package version file. Keep PACKAGE_VERSION equal to shimgen.__version__
# (tests/unit/test_cmake_package_files.py checks it).
# Compatibility: same major version; while the major version is 0, same minor version too.
set(PACKAGE_VERSION "0.1.0")

if(PACKAGE_FIND_VERSION_RANGE)
  # A range `find_package(shimgen 0.1...0.3)`: accept when inside it.
  if((PACKAGE_FIND_VERSION_RANGE_MIN STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MIN)
     OR (PACKAGE_FIND_VERSION_RANGE_MIN STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MIN)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MAX))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
elseif(NOT DEFINED PACKAGE_FIND_VERSION OR PACKAGE_FIND_VERSION STREQUAL "")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
else()
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _shimgen_have "${PACKAGE_VERSION}")
  set(_shimgen_have_major "${CMAKE_MATCH_1}")
  set(_shimgen_have_minor "${CMAKE_MATCH_2}")
  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL _shimgen_have_major)
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif(_shimgen_have_major STREQUAL "0" AND NOT "${PACKAGE_FIND_VERSION_MINOR}" STREQUAL _shimgen_have_minor
         AND NOT "${PACKAGE_FIND_VERSION_COUNT}" STREQUAL "1")
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
  unset(_shimgen_have)
  unset(_shimgen_have_major)
  unset(_shimgen_have_minor)
endif()
# shimgen is a Python tool plus CMake functions: nothing here depends on the target's pointer size.
