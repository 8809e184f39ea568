# shimgen CMake package: prefix a C-ABI shim library from one shimgen.toml, keep every shim in the
# link, export nothing else, and fail the build when the binary says otherwise.
#
# Find it with one of:
#   cmake -Dshimgen_DIR="$(python -m shimgen cmake-dir)" ...
#   a scikit-build-core project: nothing to pass (shimgen registers a cmake.root entry point)
# then:
#   find_package(shimgen CONFIG REQUIRED)
#
# Functions:
#   shimgen_generate(CONFIG <file> [OUTPUT_DIR <dir>] [TARGET <name>])
#       Runs `shimgen generate` at configure time; reruns when the config or a scanned header
#       changes. Creates the INTERFACE target <name> (default shimgen::prefix) carrying the prefix
#       definition and the generated include directory. Sets these variables of the generated
#       fragment in the caller's scope, and no other (a file variable whose output the config
#       switches off is unset):
#         SHIMGEN_PREFIX SHIMGEN_PREFIX_MACRO SHIMGEN_EXPORT_MACRO SHIMGEN_BUILD_MACRO
#         SHIMGEN_DEFINITION (<macro>=<prefix>)  SHIMGEN_PREFIX_TARGET (the INTERFACE target's name)
#         SHIMGEN_GENERATED_DIR SHIMGEN_HEADER SHIMGEN_MANIFEST SHIMGEN_VERSION_SCRIPT
#         SHIMGEN_EXPORTED_SYMBOLS_LIST SHIMGEN_DEF_FILE SHIMGEN_KEEP_SOURCE (absolute paths)
#         SHIMGEN_SHIMS SHIMGEN_PREFIXED_SHIMS SHIMGEN_REQUIRED_SHIMS (lists of names)
#         SHIMGEN_RENAME_MODE (define|pragma|auto)  SHIMGEN_ASM_HEADER (when outputs.asm_header is on)
#   shimgen_link_whole(<target> [PRIVATE|PUBLIC|INTERFACE] <libs>...)
#       Links static <libs> into <target> keeping every object (whole archive). PRIVATE by default.
#   shimgen_export_only(<target> [FROM <prefix-target>])
#       Exports only the prefixed shims and the config's `exports` from the shared <target>:
#       version script (ELF), exported-symbols list (Mach-O) or .def file (Windows).
#   shimgen_check_symbols(<target> [STRICT] [EXTRA <files>...] [REQUIRED <globs>...] [FROM <prefix-target>])
#       After each build of <target>, runs `shimgen check-symbols` on it (and EXTRA files) with the
#       generated manifest; any finding fails the build. A rebuilt EXTRA target relinks <target>.
#   shimgen_prefix_library(<target> CONFIG <file> [PUBLIC|PRIVATE] [OUTPUT_DIR <dir>]
#                          [NO_EXPORT_ONLY] [NO_CHECK] [RECOMPILE])
#       One build for a library whose rename set is what its own objects define (the config names
#       <target> in symbols_from_targets): compiles <target>'s sources unprefixed as the OBJECT
#       library <target>_shimgen_unprefixed, generates the renames from those objects as a build
#       step, links a SHARED/MODULE <target> on ELF from those objects renamed by objcopy (else, or
#       with RECOMPILE, compiles <target> again with the header force-included), force-includes the
#       header in what links it (PUBLIC by default), applies the export list and checks it
#       (check-symbols --strict) after each link.
#       Creates the INTERFACE target <target>_shimgen_prefix. Single-configuration generators only.
#   FROM names the target a shimgen_generate() call created; it defaults to the latest one.
#
# Variables read:
#   SHIMGEN_EXECUTABLE     the shimgen command to run (a list: `python3;-m;shimgen` works too);
#                          found automatically when not set.
#   SHIMGEN_CHECK_SYMBOLS  OFF turns shimgen_check_symbols() into a no-op (default ON).
#   SHIMGEN_LEGACY_WHOLE_ARCHIVE  ON makes shimgen_link_whole() use the linker's own flags even
#                          where $<LINK_LIBRARY:WHOLE_ARCHIVE> exists (CMake >= 3.24).
# Variables set:
#   shimgen_FOUND, shimgen_VERSION, SHIMGEN_COMMAND (the command list the functions run).

if(CMAKE_VERSION VERSION_LESS 3.21)
  set(shimgen_FOUND FALSE)
  set(shimgen_NOT_FOUND_MESSAGE
      "shimgen needs CMake 3.21 or newer (this is ${CMAKE_VERSION}). Try: python -m pip install cmake")
  return()
endif()

# Loading twice (two find_package calls, or a subproject) must neither redefine nor re-probe: the
# command found the first time is kept in a global property, which every directory scope sees.
get_property(_shimgen_loaded GLOBAL PROPERTY SHIMGEN_COMMAND SET)
if(_shimgen_loaded)
  get_property(SHIMGEN_COMMAND GLOBAL PROPERTY SHIMGEN_COMMAND)
  unset(_shimgen_loaded)
  set(shimgen_FOUND TRUE)
  return()
endif()
unset(_shimgen_loaded)

# find_package() sets shimgen_VERSION from shimgenConfigVersion.cmake.

# The functions record the policies in force where they are defined: define them under the
# policies this package was written for, whatever the consumer's cmake_minimum_required says.
cmake_policy(PUSH)
cmake_policy(VERSION 3.21...3.31)

include("${CMAKE_CURRENT_LIST_DIR}/shimgenTool.cmake")
_shimgen_find_command("${CMAKE_CURRENT_LIST_DIR}")
if(NOT SHIMGEN_COMMAND)
  set(shimgen_FOUND FALSE)
  set(shimgen_NOT_FOUND_MESSAGE "${_SHIMGEN_COMMAND_PROBLEM}")
  cmake_policy(POP)
  return()
endif()

set_property(GLOBAL PROPERTY SHIMGEN_COMMAND "${SHIMGEN_COMMAND}")
set_property(GLOBAL PROPERTY SHIMGEN_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/shimgenGenerate.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenLink.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenCheck.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenPrefixLibrary.cmake")

if(NOT shimgen_FIND_QUIETLY)
  list(JOIN SHIMGEN_COMMAND " " _shimgen_command_text)
  message(STATUS "Found shimgen ${shimgen_VERSION}: ${_shimgen_command_text}")
  unset(_shimgen_command_text)
endif()
cmake_policy(POP)
set(shimgen_FOUND TRUE)
