# shimgen package version file, source-checkout edition. An installed shimgen (the wheel) carries
# in its place the file that CMake's write_basic_package_version_file() writes when the wheel is
# built (root CMakeLists.txt). In a checkout, the same call writes that file into the consumer's
# build tree, from the version in shimgen/__init__.py, and this loads it. find_package() runs this
# in a scope of its own and reads PACKAGE_VERSION* from it.
include("${CMAKE_CURRENT_LIST_DIR}/shimgenVersionFile.cmake")
_shimgen_source_version(_shimgen_version "${CMAKE_CURRENT_LIST_DIR}/../__init__.py")
if(_shimgen_version STREQUAL "")
  # A copy of this directory away from its checkout: its version is unknown, so no version
  # request is met (find_package without one still loads the package).
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
  return()
endif()
set(_shimgen_version_file "${CMAKE_BINARY_DIR}/CMakeFiles/shimgen/shimgenConfigVersion.cmake")
_shimgen_write_version_file("${_shimgen_version_file}" "${_shimgen_version}")
include("${_shimgen_version_file}")
