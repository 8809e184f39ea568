# shimgen_prefix_library(<target> CONFIG <file> [PUBLIC|PRIVATE] [OUTPUT_DIR <dir>]
#                        [NO_EXPORT_ONLY] [NO_CHECK])
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/shimgenUtil.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenGenerate.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenLink.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/shimgenCheck.cmake")

# One build, three steps, for a library whose rename set is what its own objects define:
#   1. <target>_shimgen_unprefixed, an OBJECT library of <target>'s sources with its settings as
#      they are at this call, compiles them as upstream ships them;
#   2. a build step runs `shimgen generate --target <target> --objects-list ...` on those objects
#      (the config must name <target> in symbols_from_targets);
#   3. <target> itself compiles with the generated header force-included (no source edit), links
#      with the export list and is checked (check-symbols --strict) after each link.
# Ninja and Make see the dependencies, so a second build with nothing changed does no work, and a
# source edit rebuilds both copies and regenerates the header only when the set of names changed.
function(shimgen_prefix_library target)
  _shimgen_require_target(shimgen_prefix_library "${target}")
  _shimgen_parse(shimgen_prefix_library 1 "PUBLIC;PRIVATE;NO_EXPORT_ONLY;NO_CHECK" "CONFIG;OUTPUT_DIR" "")
  _shimgen_config_file(shimgen_prefix_library config "${ARG_CONFIG}"
                       "shimgen_prefix_library(${target} CONFIG \${CMAKE_CURRENT_SOURCE_DIR}/shimgen.toml)")
  if(ARG_PUBLIC AND ARG_PRIVATE)
    message(FATAL_ERROR "shimgen_prefix_library: give one scope, not both PUBLIC and PRIVATE.")
  endif()
  set(scope PUBLIC)
  if(ARG_PRIVATE)
    set(scope PRIVATE)
  endif()
  get_target_property(imported "${target}" IMPORTED)
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(imported OR aliased)
    message(FATAL_ERROR "shimgen_prefix_library: '${target}' is imported or an alias; it must be a library "
                        "this project compiles from source.")
  endif()
  get_target_property(type "${target}" TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "shimgen_prefix_library: '${target}' is a ${type}; give the library whose "
                        "sources define the names.")
  endif()
  get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi)
    message(FATAL_ERROR "shimgen_prefix_library: the ${CMAKE_GENERATOR} generator builds several "
                        "configurations, whose objects differ; use a single-configuration generator "
                        "(-G Ninja, or Makefiles).")
  endif()
  set(clone "${target}_shimgen_unprefixed")
  set(prefix_target "${target}_shimgen_prefix")
  if(TARGET "${clone}" OR TARGET "${prefix_target}")
    message(FATAL_ERROR "shimgen_prefix_library: called twice for '${target}'; call it once per library.")
  endif()

  # Step 1: the unprefixed copy, from the same sources and settings. Read now, before step 3 adds
  # the force-include to <target>; relative sources are relative to <target>'s directory.
  get_target_property(sources "${target}" SOURCES)
  get_target_property(source_dir "${target}" SOURCE_DIR)
  set(absolute_sources "")
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<" OR IS_ABSOLUTE "${source}")
      list(APPEND absolute_sources "${source}")
    else()
      list(APPEND absolute_sources "${source_dir}/${source}")
    endif()
  endforeach()
  add_library("${clone}" OBJECT EXCLUDE_FROM_ALL ${absolute_sources})
  foreach(property IN ITEMS INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES
                            C_STANDARD C_STANDARD_REQUIRED C_EXTENSIONS CXX_STANDARD CXX_STANDARD_REQUIRED
                            CXX_EXTENSIONS POSITION_INDEPENDENT_CODE)
    get_target_property(value "${target}" ${property})
    if(NOT "${value}" MATCHES "-NOTFOUND$")
      set_property(TARGET "${clone}" PROPERTY ${property} "${value}")
    endif()
  endforeach()
  get_target_property(libraries "${target}" LINK_LIBRARIES)
  if(libraries)
    # For their usage requirements (include directories, definitions of dependencies).
    target_link_libraries("${clone}" PRIVATE ${libraries})
  endif()

  # Step 2: the objects, listed for the generator; it runs at configure time for the CMake
  # variables only (a first configure, before any object exists, gives them without names) and
  # as a build step for every output.
  _shimgen_claim_output_dir(shimgen_prefix_library output_dir "${ARG_OUTPUT_DIR}"
                            "${CMAKE_CURRENT_BINARY_DIR}/shimgen/${target}" "shimgen call")
  # Beside the objects' CMakeFiles/, so the manifest names them relative to it.
  set(listing "${CMAKE_CURRENT_BINARY_DIR}/${target}.shimgen-objects.txt")
  file(GENERATE OUTPUT "${listing}" CONTENT "$<JOIN:$<TARGET_OBJECTS:${clone}>,\n>\n")

  get_property(command GLOBAL PROPERTY SHIMGEN_COMMAND)
  set(generate_args generate -c "${config}" -o "${output_dir}" --target "${target}" --objects-list "${listing}")
  execute_process(
    COMMAND ${command} ${generate_args} --cmake-only
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}\n${out}" detail)
    message(FATAL_ERROR "shimgen_prefix_library: `shimgen generate -c ${config} --target ${target}` failed "
                        "(exit ${rc}):\n${detail}\nFix what it names, then configure again.")
  endif()
  _shimgen_load_generated(shimgen_prefix_library "${config}" "${output_dir}" "${prefix_target}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${config}")
  if(NOT DEFINED SHIMGEN_HEADER)
    message(FATAL_ERROR "shimgen_prefix_library: the config disables [outputs] header, which is "
                        "force-included. Remove `header = false` from it.")
  endif()

  set(byproducts "")
  foreach(variable IN ITEMS SHIMGEN_HEADER SHIMGEN_ASM_HEADER SHIMGEN_MANIFEST SHIMGEN_VERSION_SCRIPT
                            SHIMGEN_EXPORTED_SYMBOLS_LIST SHIMGEN_DEF_FILE SHIMGEN_KEEP_SOURCE)
    if(DEFINED ${variable})
      list(APPEND byproducts "${${variable}}")
    endif()
  endforeach()
  # The stamp is the output; the generated files are byproducts the generator rewrites only when
  # their bytes change, so an unchanged name set recompiles nothing (Ninja restats byproducts).
  set(stamp "${output_dir}/shimgen-objects.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND ${command} ${generate_args} --skip-cmake
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS "$<TARGET_OBJECTS:${clone}>" "${listing}" "${config}"
    COMMENT "shimgen: reading the unprefixed objects of ${target}, generating its renames"
    VERBATIM)
  add_custom_target("${target}_shimgen_generate" DEPENDS "${stamp}")
  add_dependencies("${target}" "${target}_shimgen_generate")

  # Step 3: <target> and (PUBLIC) what links it compile with the force-included header.
  shimgen_apply_prefix("${target}" ${scope} FORCE_INCLUDE)
  set(artifact "")
  if(type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY)$" AND NOT ARG_NO_EXPORT_ONLY)
    shimgen_export_only("${target}" FROM "${prefix_target}")
  endif()
  if(NOT type STREQUAL "OBJECT_LIBRARY")
    set(artifact "$<TARGET_FILE:${target}>")
    if(NOT ARG_NO_CHECK)
      shimgen_check_symbols("${target}" STRICT FROM "${prefix_target}")
    endif()
  endif()

  # A source or setting added to <target> after this call would reach the prefixed build only, and
  # its names would never be read: at the end of the directory, fail if any of them changed. Taken
  # here, after this call's own additions (on Windows shimgen_export_only adds the .def file as a
  # source), not when the clone was made.
  set(watched "")
  foreach(property IN ITEMS SOURCES INCLUDE_DIRECTORIES COMPILE_DEFINITIONS)
    get_target_property(value "${target}" ${property})
    string(APPEND watched "${property}=${value}\n")
  endforeach()
  cmake_language(EVAL CODE
    "cmake_language(DEFER CALL _shimgen_prefix_library_unchanged [==[${target}]==] [==[${watched}]==])")

  # What `shimgen build` reads back: where this library's generated files, objects and binary are.
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/shimgen-prefixed/${target}.txt" CONTENT
"config=${config}
generated=${output_dir}
objects=${listing}
artifact=${artifact}
")
  set_target_properties("${target}" PROPERTIES SHIMGEN_PREFIX_TARGET "${prefix_target}"
                                               SHIMGEN_UNPREFIXED_TARGET "${clone}")
endfunction()

# _shimgen_prefix_library_unchanged(<target> <watched>): deferred to the end of the directory that
# called shimgen_prefix_library(<target>); <watched> is what the call saw.
function(_shimgen_prefix_library_unchanged target watched)
  set(now "")
  foreach(property IN ITEMS SOURCES INCLUDE_DIRECTORIES COMPILE_DEFINITIONS)
    get_target_property(value "${target}" ${property})
    string(APPEND now "${property}=${value}\n")
  endforeach()
  if(NOT now STREQUAL watched)
    message(FATAL_ERROR "shimgen_prefix_library(${target}): the target's sources, include directories "
                        "or compile definitions changed after the call, so the unprefixed copy the names "
                        "are read from would not match it. Call shimgen_prefix_library() after the last "
                        "target_sources()/target_include_directories()/target_compile_definitions() of ${target}.")
  endif()
endfunction()
