# Helpers shared by the shimgen functions.
include_guard(GLOBAL)

# _shimgen_parse(<function> <first-index> <options> <one-value> <multi-value>): parse the calling
# function's ARGV with cmake_parse_arguments into ARG_*, and stop configure on what a typo would
# otherwise hide: unknown arguments and keywords given without a value.
macro(_shimgen_parse _fn _first _options _one _multi)
  cmake_parse_arguments(PARSE_ARGV ${_first} ARG "${_options}" "${_one}" "${_multi}")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_fn}: unknown arguments '${ARG_UNPARSED_ARGUMENTS}'. "
                        "Accepted keywords: ${_options} ${_one} ${_multi}; check the spelling.")
  endif()
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_fn}: ${ARG_KEYWORDS_MISSING_VALUES} needs a value; "
                        "give it one or drop the keyword.")
  endif()
endmacro()

# _shimgen_require_target(<function> <name>): fail unless <name> is an existing target.
function(_shimgen_require_target fn name)
  if("${name}" STREQUAL "")
    message(FATAL_ERROR "${fn}: the first argument must be a target name.")
  endif()
  if(NOT TARGET "${name}")
    message(FATAL_ERROR "${fn}: '${name}' is not a target. Call ${fn}() after add_library(${name} ...).")
  endif()
endfunction()

# _shimgen_generated(<function> <out-prefix> <from>): read what shimgen_generate() recorded for the
# prefix target <from> (default: the latest call) into <out-prefix>_{DIR,MANIFEST,VERSION_SCRIPT,
# EXPORTED_SYMBOLS_LIST,DEF_FILE}.
function(_shimgen_generated fn out from)
  if("${from}" STREQUAL "")
    get_property(from GLOBAL PROPERTY SHIMGEN_LAST_PREFIX_TARGET)
    if("${from}" STREQUAL "")
      message(FATAL_ERROR "${fn}: no shimgen_generate() call yet. "
                          "Call shimgen_generate(CONFIG shimgen.toml) before ${fn}().")
    endif()
  endif()
  if(NOT TARGET "${from}")
    message(FATAL_ERROR "${fn}: FROM '${from}' is not a target; name the TARGET of a shimgen_generate() call.")
  endif()
  get_target_property(dir "${from}" SHIMGEN_GENERATED_DIR)
  if(NOT dir)
    message(FATAL_ERROR "${fn}: '${from}' was not made by shimgen_generate(); "
                        "name the TARGET of a shimgen_generate() call in FROM.")
  endif()
  set(${out}_DIR "${dir}" PARENT_SCOPE)
  foreach(kind IN ITEMS MANIFEST VERSION_SCRIPT EXPORTED_SYMBOLS_LIST DEF_FILE)
    get_target_property(value "${from}" SHIMGEN_${kind})
    if(NOT value)
      set(value "")
    endif()
    set(${out}_${kind} "${value}" PARENT_SCOPE)
  endforeach()
endfunction()

# _shimgen_claim_output_dir(<function> <out-var> <given> <default> <what>): the absolute output
# directory of one call (<given> relative to the current binary dir, else <default>), refused when an
# earlier shimgen call already writes there (two generators in one directory overwrite each other).
function(_shimgen_claim_output_dir fn out given default what)
  if(NOT "${given}" STREQUAL "")
    get_filename_component(dir "${given}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(dir "${default}")
  endif()
  get_property(used_dirs GLOBAL PROPERTY SHIMGEN_OUTPUT_DIRS)
  if(dir IN_LIST used_dirs)
    message(FATAL_ERROR "${fn}: OUTPUT_DIR '${dir}' is already used by another ${what}; "
                        "give this one its own OUTPUT_DIR.")
  endif()
  set_property(GLOBAL APPEND PROPERTY SHIMGEN_OUTPUT_DIRS "${dir}")
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# _shimgen_config_file(<function> <out-var> <given> <example-call>): the absolute path of a call's
# CONFIG (relative to the current source dir), stopping configure when it is missing or not a file.
function(_shimgen_config_file fn out given example)
  if("${given}" STREQUAL "")
    message(FATAL_ERROR "${fn}: CONFIG <file> is required, for example ${example}.")
  endif()
  get_filename_component(config "${given}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${config}" OR IS_DIRECTORY "${config}")
    message(FATAL_ERROR "${fn}: CONFIG '${config}' is not a file. "
                        "Create it with `shimgen init --prefix <prefix>` or fix the path.")
  endif()
  set(${out} "${config}" PARENT_SCOPE)
endfunction()
