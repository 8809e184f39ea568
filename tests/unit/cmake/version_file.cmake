# cmake -P unit script: find_package(shimgen <request>) accepts and rejects versions through the
# checkout's shimgenConfigVersion.cmake, which has CMake's write_basic_package_version_file() write
# the real file. Run by tests/unit/test_cmake_package_files.py with -DCMAKE_DIR=<cmake/>
# -DWORK=<scratch dir> -DVERSION_UNDER_TEST=<shimgen.__version__>, from WORK.
#
# shimgenConfig.cmake returns at once (found) when the global property SHIMGEN_COMMAND is set, as
# on a second find_package(): so these calls exercise the version file alone, and run nothing.
set_property(GLOBAL PROPERTY SHIMGEN_COMMAND "not-run")

function(expect request expected)
  unset(shimgen_FOUND)
  unset(shimgen_VERSION)
  if(request STREQUAL "")
    find_package(shimgen CONFIG QUIET PATHS "${CMAKE_DIR}" NO_DEFAULT_PATH)
  else()
    find_package(shimgen "${request}" CONFIG QUIET PATHS "${CMAKE_DIR}" NO_DEFAULT_PATH)
  endif()
  if(NOT "${shimgen_FOUND}" STREQUAL "${expected}")
    message(FATAL_ERROR "request '${request}': found=${shimgen_FOUND}, expected ${expected}")
  endif()
  if(expected AND NOT shimgen_VERSION STREQUAL VERSION_UNDER_TEST)
    message(FATAL_ERROR "request '${request}': shimgen_VERSION is '${shimgen_VERSION}', expected ${VERSION_UNDER_TEST}")
  endif()
  message(STATUS "ok: '${request}' -> ${expected}")
endfunction()

# VERSION_UNDER_TEST is shimgen.__version__; the cases below assume a 0.1.x version.
if(NOT VERSION_UNDER_TEST MATCHES "^0\\.1\\.")
  message(FATAL_ERROR "update tests/unit/cmake/version_file.cmake for version ${VERSION_UNDER_TEST}")
endif()
expect("" 1)
expect("0.1" 1)
expect("${VERSION_UNDER_TEST}" 1)
expect("0.1...0.1.999" 1)
expect("0.1...<0.2" 1)
expect("0" 0)           # CMake reads "0" as 0.0: another minor version
expect("0.0.9" 0)       # 0.x: minor versions are incompatible
expect("0.2" 0)         # newer than this
expect("0.1.999" 0)     # a newer patch release than this
expect("1.0" 0)
expect("0...1.0" 0)     # a range must stay within this minor version
expect("0.0.1...0.0.5" 0)

# The file loaded is the one CMake generated, not a hand-written one.
file(STRINGS "${WORK}/CMakeFiles/shimgen/shimgenConfigVersion.cmake" first LIMIT_COUNT 1)
if(NOT first MATCHES "basic version file for the Config-mode of find_package")
  message(FATAL_ERROR "the version file was not written by write_basic_package_version_file: '${first}'")
endif()
file(STRINGS "${WORK}/CMakeFiles/shimgen/shimgenConfigVersion.cmake" version_line REGEX "^set\\(PACKAGE_VERSION ")
if(NOT version_line STREQUAL "set(PACKAGE_VERSION \"${VERSION_UNDER_TEST}\")")
  message(FATAL_ERROR "generated version line: '${version_line}'")
endif()
