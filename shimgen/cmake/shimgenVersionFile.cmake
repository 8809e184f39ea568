# How the package version file is made, for both homes of this package: the wheel (root
# CMakeLists.txt writes it at build time and installs it) and a source checkout
# (shimgenConfigVersion.cmake writes it into the consumer's build tree).
include_guard(GLOBAL)

# _shimgen_write_version_file(<file> <version>): CMake's own write_basic_package_version_file().
# Compatible: the same major version, and while it is 0 the same minor version too (0.x releases
# may break), never an older version than requested; ARCH_INDEPENDENT as nothing here is compiled.
function(_shimgen_write_version_file file version)
  include(CMakePackageConfigHelpers)
  if(version MATCHES "^0\\.")
    set(compatibility SameMinorVersion)
  else()
    set(compatibility SameMajorVersion)
  endif()
  write_basic_package_version_file("${file}" VERSION "${version}" COMPATIBILITY ${compatibility} ARCH_INDEPENDENT)
endfunction()

# _shimgen_source_version(<out> <__init__.py>): the `__version__ = "..."` of the Python package,
# the one place the version is written down; "" when the file is missing or names none.
function(_shimgen_source_version out init_file)
  set(version "")
  if(EXISTS "${init_file}")
    file(STRINGS "${init_file}" lines REGEX "^__version__ = ")
    if(lines MATCHES "^__version__ = [\"']([0-9][0-9A-Za-z.+-]*)[\"']")
      set(version "${CMAKE_MATCH_1}")
    endif()
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()
