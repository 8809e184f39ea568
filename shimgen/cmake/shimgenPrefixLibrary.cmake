# shimgen_prefix_library(<target> CONFIG <file> [PUBLIC|PRIVATE] [OUTPUT_DIR <dir>]
#                        [NO_EXPORT_ONLY] [NO_CHECK] [RECOMPILE])
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
#   3. a SHARED/MODULE <target> on ELF links those same objects renamed by `objcopy --redefine-syms`
#      (exact for definitions and references, and no second compile); otherwise (or with RECOMPILE)
#      <target> compiles again with the generated header force-included (no source edit). Either
#      way it links with the export list and is checked (check-symbols --strict) after each link,
#      and (PUBLIC) what links it compiles with the header.
# Ninja and Make see the dependencies, so a second build with nothing changed does no work, and a
# source edit rebuilds both copies and regenerates the header only when the set of names changed.
function(shimgen_prefix_library target)
  _shimgen_require_target(shimgen_prefix_library "${target}")
  _shimgen_parse(shimgen_prefix_library 1 "PUBLIC;PRIVATE;NO_EXPORT_ONLY;NO_CHECK;RECOMPILE" "CONFIG;OUTPUT_DIR" "")
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
  _shimgen_copy_compile_properties("${target}" "${clone}")
  get_target_property(libraries "${target}" LINK_LIBRARIES)
  if(libraries)
    # For their usage requirements (include directories, definitions of dependencies).
    target_link_libraries("${clone}" PRIVATE ${libraries})
  endif()

  # The object route: link <target> from the clone's objects, renamed. Needs objcopy and ELF, and
  # objects objcopy can rewrite (not LTO bitcode, not CUDA's separable device code).
  set(rename_objects OFF)
  get_target_property(ipo "${target}" INTERPROCEDURAL_OPTIMIZATION)
  get_target_property(separable "${target}" CUDA_SEPARABLE_COMPILATION)
  if(type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY)$" AND NOT ARG_RECOMPILE AND CMAKE_OBJCOPY
     AND CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF" AND NOT WIN32 AND NOT APPLE AND NOT MSVC
     AND NOT CMAKE_C_COMPILER_FRONTEND_VARIANT STREQUAL "MSVC"
     AND NOT CMAKE_CXX_COMPILER_FRONTEND_VARIANT STREQUAL "MSVC" AND NOT ipo AND NOT separable)
    set(rename_objects ON)
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
  set(rename_map "${output_dir}/redefine-syms.txt")
  set(rename_dir "${output_dir}/objects")
  set(rename_rsp "${output_dir}/objects.rsp")
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
  set(rename_commands "")
  set(build_args "")
  if(rename_objects)
    list(APPEND byproducts "${rename_map}" "${rename_rsp}")
    set(build_args --redefine-syms "${rename_map}")
    set(rename_commands COMMAND "${CMAKE_COMMAND}" "-DOBJCOPY=${CMAKE_OBJCOPY}" "-DMAP=${rename_map}"
        "-DLISTING=${listing}" "-DOUT_DIR=${rename_dir}" "-DRSP=${rename_rsp}"
        -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/shimgenRenameObjects.cmake")
  endif()
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND ${command} ${generate_args} --skip-cmake ${build_args}
    ${rename_commands}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS "$<TARGET_OBJECTS:${clone}>" "${listing}" "${config}"
    COMMENT "shimgen: reading the unprefixed objects of ${target}, generating its renames"
    VERBATIM)
  add_custom_target("${target}_shimgen_generate" DEPENDS "${stamp}")
  add_dependencies("${target}" "${target}_shimgen_generate")

  # Step 3: <target> links the renamed objects, or compiles again with the force-included header;
  # (PUBLIC) what links it compiles with the header.
  shimgen_apply_prefix("${target}" ${scope} FORCE_INCLUDE)
  if(rename_objects)
    _shimgen_link_renamed_objects("${target}" "${config}" "${rename_rsp}" "${stamp}" "${absolute_sources}")
  endif()
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
                                               SHIMGEN_UNPREFIXED_TARGET "${clone}"
                                               SHIMGEN_RENAMED_OBJECTS "${rename_objects}")
endfunction()

# _shimgen_copy_compile_properties(<target> <clone>): every property of <target> that can change
# how a source compiles, onto <clone>. By construction: every target property CMake documents is
# copied (set, or unset when <target> lacks it, so the calling directory's defaults do not leak
# in) unless it is about the target's identity, its link, its outputs or its consumers; a
# property a later CMake adds is copied too.
function(_shimgen_copy_compile_properties target clone)
  # Target properties that do not change how a source compiles: identity, sources (the clone has
  # its own), linking, outputs, installation, IDE and packaging settings, and what consumers see.
  set(not_compile
    "^(NAME|TYPE|SOURCES|SOURCE_DIR|BINARY_DIR|ALIASED_TARGET|IMPORTED.*|EXCLUDE_FROM_ALL|DEFINE_SYMBOL|\
MANUALLY_ADDED_DEPENDENCIES|LOCATION.*|INTERFACE_.*|LINK_.*|.*_LINK_.*|LINKER_.*|.*_LINKER_LAUNCHER|.*OUTPUT_.*|\
OUTPUT_NAME.*|PREFIX|SUFFIX|IMPORT_PREFIX|IMPORT_SUFFIX|VERSION|SOVERSION|.*RPATH.*|INSTALL_.*|FRAMEWORK.*|\
BUNDLE.*|MACOSX_.*|MACHO_.*|SHIMGEN_.*|ENABLE_EXPORTS|EXPORT_.*|STATIC_LIBRARY_.*|DEPLOYMENT_.*|PDB_.*|\
COMPILE_PDB_.*|VS_.*|XCODE_.*|ANDROID_.*|GHS_.*|WIN32_EXECUTABLE|FOLDER|LABELS|PROJECT_LABEL|HEADER_SET.*|\
HEADER_DIRS.*|CXX_MODULE_SET.*|CXX_MODULE_DIRS.*|IMPORTED_.*|TRANSITIVE_.*|UNITY_BUILD.*|AUTOGEN.*|\
AUTOMOC.*|AUTOUIC.*|AUTORCC.*|RUNTIME_.*|ARCHIVE_.*|LIBRARY_.*|DEBUG_POSTFIX|.*_POSTFIX|RESOURCE|\
PUBLIC_HEADER|PRIVATE_HEADER|EXPORT_NAME|EXPORT_PROPERTIES|NO_SONAME|SYMBOLIC|DOTNET_.*|COMMON_LANGUAGE_RUNTIME|\
MAP_IMPORTED_CONFIG_.*|ADDITIONAL_CLEAN_FILES|DEPRECATION|SYSTEM|VERIFY_INTERFACE_HEADER_SETS|\
CROSSCOMPILING_EMULATOR|TEST_LAUNCHER|AIX_.*|ISPC_HEADER_.*|SKIP_BUILD_RPATH|BUILD_WITH_INSTALL_.*|\
COMPATIBLE_INTERFACE_.*|.*_SETS|.*_SET|.*_SET_.*|.*_DIRS_.*|CUDA_RESOLVE_DEVICE_SYMBOLS|.*_VISIBILITY_PRESET_UNUSED|C_EXTENSIONS_UNUSED|ALIAS_GLOBAL)$")
  get_property(names GLOBAL PROPERTY _SHIMGEN_PROPERTY_NAMES)
  if(NOT names)
    execute_process(COMMAND "${CMAKE_COMMAND}" --help-property-list OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "shimgen_prefix_library: `cmake --help-property-list` failed (exit ${rc}).")
    endif()
    string(REGEX REPLACE "\n" ";" listed "${listed}")
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE} Debug Release RelWithDebInfo MinSizeRel)
    set(names "")
    foreach(name IN LISTS listed)
      if(NOT name MATCHES "^[A-Za-z_<>]+$")
        continue()
      endif()
      set(expanded "${name}")
      if(name MATCHES "<LANG>")
        set(expanded "")
        foreach(language IN LISTS languages)
          string(REPLACE "<LANG>" "${language}" one "${name}")
          list(APPEND expanded "${one}")
        endforeach()
      endif()
      set(done "")
      foreach(one IN LISTS expanded)
        if(one MATCHES "<CONFIG>")
          foreach(config IN LISTS configs)
            string(TOUPPER "${config}" config)
            string(REPLACE "<CONFIG>" "${config}" each "${one}")
            list(APPEND done "${each}")
          endforeach()
        elseif(NOT one MATCHES "<")
          list(APPEND done "${one}")
        endif()
      endforeach()
      foreach(one IN LISTS done)
        if(NOT one MATCHES "${not_compile}")
          list(APPEND names "${one}")
        endif()
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES names)
    set_property(GLOBAL PROPERTY _SHIMGEN_PROPERTY_NAMES "${names}")
  endif()
  foreach(name IN LISTS names)
    get_property(set TARGET "${target}" PROPERTY "${name}" SET)
    if(set)
      get_property(value TARGET "${target}" PROPERTY "${name}")
      set_property(TARGET "${clone}" PROPERTY "${name}" "${value}")
    else()
      get_property(clone_set TARGET "${clone}" PROPERTY "${name}" SET)
      if(clone_set)
        set_property(TARGET "${clone}" PROPERTY "${name}")
      endif()
    endif()
  endforeach()
  # What CMake gives a shared library without a property: position-independent code and the
  # <target>_EXPORTS definition (an OBJECT library gets neither on its own).
  get_target_property(type "${target}" TYPE)
  if(type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY)$")
    get_property(pic_set TARGET "${target}" PROPERTY POSITION_INDEPENDENT_CODE SET)
    if(NOT pic_set)
      set_property(TARGET "${clone}" PROPERTY POSITION_INDEPENDENT_CODE ON)
    endif()
    get_property(define_set TARGET "${target}" PROPERTY DEFINE_SYMBOL SET)
    get_target_property(define "${target}" DEFINE_SYMBOL)
    if(NOT define_set)
      string(MAKE_C_IDENTIFIER "${target}_EXPORTS" define)
    endif()
    if(define)
      target_compile_definitions("${clone}" PRIVATE "${define}")
    endif()
  endif()
endfunction()

# _shimgen_link_renamed_objects(<target> <placeholder> <rsp> <stamp> <sources>): <target> compiles
# nothing; it links the renamed objects the response file names, after the build step wrote them.
function(_shimgen_link_renamed_objects target placeholder rsp stamp sources)
  get_target_property(language "${target}" LINKER_LANGUAGE)
  if(NOT language)
    # The language CMake would have linked with: C++ (or CUDA, HIP) when any source is one.
    get_property(enabled GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(language C)
    foreach(candidate IN ITEMS HIP CUDA CXX)
      if(candidate IN_LIST enabled)
        foreach(source IN LISTS sources)
          get_filename_component(extension "${source}" LAST_EXT)
          string(REGEX REPLACE "^\\." "" extension "${extension}")
          if(extension IN_LIST CMAKE_${candidate}_SOURCE_FILE_EXTENSIONS)
            set(language "${candidate}")
          endif()
        endforeach()
      endif()
    endforeach()
    set_property(TARGET "${target}" PROPERTY LINKER_LANGUAGE "${language}")
  endif()
  # A target needs a source; the config is one that compiles to nothing.
  set_property(TARGET "${target}" PROPERTY SOURCES "${placeholder}")
  target_link_options("${target}" PRIVATE "@${rsp}")
  set_property(TARGET "${target}" APPEND PROPERTY LINK_DEPENDS "${stamp}")
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
