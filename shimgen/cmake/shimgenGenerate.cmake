# shimgen_generate(CONFIG <file> [OUTPUT_DIR <dir>] [TARGET <name>])
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/shimgenUtil.cmake")

function(shimgen_generate)
  _shimgen_parse(shimgen_generate 0 "" "CONFIG;OUTPUT_DIR;TARGET" "")
  _shimgen_config_file(shimgen_generate config "${ARG_CONFIG}"
                       "shimgen_generate(CONFIG \${CMAKE_CURRENT_SOURCE_DIR}/shimgen.toml)")

  # TARGET: a plain name, or Namespace::name (then an ALIAS of Namespace_name).
  if(NOT DEFINED ARG_TARGET)
    set(ARG_TARGET "shimgen::prefix")
  endif()
  string(REPLACE "::" "_" real_target "${ARG_TARGET}")
  if(NOT real_target MATCHES "^[A-Za-z0-9_.+-]+$")
    message(FATAL_ERROR "shimgen_generate: TARGET '${ARG_TARGET}' is not a valid target name.")
  endif()
  if(TARGET "${ARG_TARGET}" OR TARGET "${real_target}")
    message(FATAL_ERROR "shimgen_generate: target '${ARG_TARGET}' already exists. "
                        "Give each shimgen_generate() call its own TARGET <name>.")
  endif()

  _shimgen_claim_output_dir(shimgen_generate output_dir "${ARG_OUTPUT_DIR}"
                            "${CMAKE_CURRENT_BINARY_DIR}/shimgen/${real_target}" "shimgen_generate() call")

  get_property(command GLOBAL PROPERTY SHIMGEN_COMMAND)
  execute_process(
    COMMAND ${command} generate -c "${config}" -o "${output_dir}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}\n${out}" detail)
    message(FATAL_ERROR "shimgen_generate: `shimgen generate -c ${config}` failed (exit ${rc}):\n"
                        "${detail}\nFix what it names, then configure again.")
  endif()
  # What generate warns about (a project header named like the generated one, a shim declared
  # with two signatures) would otherwise vanish with its captured stderr.
  if(err MATCHES "shimgen: warning:")
    string(STRIP "${err}" err)
    message(WARNING "shimgen_generate: ${err}")
  endif()

  _shimgen_load_generated(shimgen_generate "${config}" "${output_dir}" "${real_target}")
  if(NOT ARG_TARGET STREQUAL real_target AND NOT TARGET "${ARG_TARGET}")
    add_library("${ARG_TARGET}" ALIAS "${real_target}")
  endif()

  # Rerun configure (and so the generator) when the config or a header that declares shims changes.
  set(depends "${config}")
  if(DEFINED SHIMGEN_MANIFEST AND EXISTS "${SHIMGEN_MANIFEST}")
    _shimgen_manifest_headers(headers "${SHIMGEN_MANIFEST}" "${config}")
    list(APPEND depends ${headers})
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${depends})

  # Hand the caller the documented variables, and only those, as if it had included the fragment:
  # one whose output the config switches off is unset there too.
  foreach(variable IN LISTS documented)
    if(DEFINED ${variable})
      set(${variable} "${${variable}}" PARENT_SCOPE)
    else()
      unset(${variable} PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# _shimgen_generate_variables(<out>): the variables shimgen_generate() sets in its caller's scope:
# those the generated fragment (templates/shimgen.cmake.j2) sets. shimgenConfig.cmake documents
# the same list; tests/unit/test_cmake_package_files.py keeps the three in step.
function(_shimgen_generate_variables out)
  set(${out}
      SHIMGEN_PREFIX SHIMGEN_PREFIX_MACRO SHIMGEN_EXPORT_MACRO SHIMGEN_BUILD_MACRO SHIMGEN_DEFINITION
      SHIMGEN_GENERATED_DIR SHIMGEN_HEADER SHIMGEN_MANIFEST SHIMGEN_VERSION_SCRIPT
      SHIMGEN_EXPORTED_SYMBOLS_LIST SHIMGEN_DEF_FILE SHIMGEN_KEEP_SOURCE
      SHIMGEN_SHIMS SHIMGEN_PREFIXED_SHIMS SHIMGEN_REQUIRED_SHIMS SHIMGEN_PREFIX_TARGET
      SHIMGEN_RENAME_MODE SHIMGEN_ASM_HEADER
      PARENT_SCOPE)
endfunction()

# _shimgen_manifest_headers(<out> <manifest> <config>): the headers named by the manifest's
# shims[].declared_in ('include/x.h:12', relative to the config's directory), without duplicates.
function(_shimgen_manifest_headers out manifest config)
  get_filename_component(root "${config}" DIRECTORY)
  file(READ "${manifest}" json)
  string(JSON count ERROR_VARIABLE json_error LENGTH "${json}" shims)
  if(json_error)
    message(FATAL_ERROR "shimgen_generate: ${manifest} is not a shimgen manifest (${json_error}); "
                        "delete it and configure again.")
  endif()
  set(result "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(index RANGE ${last})
      string(JSON kind TYPE "${json}" shims ${index} declared_in)
      if(kind STREQUAL "STRING")
        string(JSON where GET "${json}" shims ${index} declared_in)
        string(REGEX REPLACE ":[0-9]+$" "" header "${where}")
        list(APPEND result "${root}/${header}")
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# _shimgen_load_generated(<function> <config> <output-dir> <prefix-target>): read the index and the
# CMake fragment that `shimgen generate` wrote into <output-dir>, creating the INTERFACE target
# <prefix-target> and the SHIMGEN_* variables in the calling function's scope (a macro, so they
# land there), and record the generated files on <prefix-target> for FROM.
macro(_shimgen_load_generated _shimgen_fn _shimgen_config _shimgen_output_dir _shimgen_real_target)
  # `shimgen generate` always writes this index; it names the fragment, which [outputs] cmake may
  # rename or switch off. Nothing else in the directory is guessed at.
  set(index "${_shimgen_output_dir}/shimgen-index.cmake")
  if(NOT EXISTS "${index}")
    message(FATAL_ERROR "${_shimgen_fn}: `shimgen generate` wrote no ${index}. The shimgen "
                        "command found (${command}) is older than this CMake package; install one "
                        "version of both (python -m pip install --upgrade shimgen).")
  endif()
  unset(_shimgen_index_schema)
  unset(_shimgen_index_fragment)
  include("${index}")
  if(NOT "${_shimgen_index_schema}" STREQUAL "1")
    message(FATAL_ERROR "${_shimgen_fn}: ${index} has index schema '${_shimgen_index_schema}', not 1. "
                        "Install one version of shimgen and its CMake package (python -m pip install --upgrade shimgen).")
  endif()
  if("${_shimgen_index_fragment}" STREQUAL "")
    message(FATAL_ERROR "${_shimgen_fn}: ${_shimgen_config} disables the CMake output ([outputs] cmake = false); "
                        "${_shimgen_fn}() needs it. Remove that line.")
  endif()
  set(fragment "${_shimgen_output_dir}/${_shimgen_index_fragment}")

  # Start from none of the variables this function hands back: a function scope begins as a copy
  # of the caller's, which may hold an earlier call's values (say SHIMGEN_DEF_FILE of a config
  # whose .def output this one switches off).
  _shimgen_generate_variables(documented)
  foreach(variable IN LISTS documented)
    unset(${variable})
  endforeach()

  # The fragment creates the INTERFACE target (definition PUBLIC, include dir) and the SHIMGEN_*
  # variables; it aliases shimgen::prefix itself when the target is the default shimgen_prefix.
  set(SHIMGEN_PREFIX_TARGET "${_shimgen_real_target}")
  include("${fragment}")
  set_target_properties("${_shimgen_real_target}" PROPERTIES
    SHIMGEN_CONFIG "${_shimgen_config}"
    SHIMGEN_GENERATED_DIR "${_shimgen_output_dir}"
    SHIMGEN_PREFIX "${SHIMGEN_PREFIX}")
  foreach(kind IN ITEMS MANIFEST VERSION_SCRIPT EXPORTED_SYMBOLS_LIST DEF_FILE)
    if(DEFINED SHIMGEN_${kind})
      set_target_properties("${_shimgen_real_target}" PROPERTIES SHIMGEN_${kind} "${SHIMGEN_${kind}}")
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY SHIMGEN_LAST_PREFIX_TARGET "${_shimgen_real_target}")
endmacro()
