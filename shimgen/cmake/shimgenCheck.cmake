# shimgen_check_symbols(<target> [STRICT] [EXTRA <files>...] [REQUIRED <globs>...] [FROM <prefix-target>])
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/shimgenUtil.cmake")

function(shimgen_check_symbols target)
  _shimgen_require_target(shimgen_check_symbols "${target}")
  _shimgen_parse(shimgen_check_symbols 1 "STRICT" "FROM" "EXTRA;REQUIRED")
  get_target_property(type "${target}" TYPE)
  if(NOT type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY|STATIC_LIBRARY|EXECUTABLE)$")
    message(FATAL_ERROR "shimgen_check_symbols: '${target}' is a ${type}, which has no binary to "
                        "check. Check the library or executable it goes into.")
  endif()
  if(DEFINED SHIMGEN_CHECK_SYMBOLS AND NOT SHIMGEN_CHECK_SYMBOLS)
    message(STATUS "shimgen: SHIMGEN_CHECK_SYMBOLS is off; not checking ${target}")
    return()
  endif()
  if(NOT DEFINED ARG_FROM)
    set(ARG_FROM "")
  endif()
  _shimgen_generated(shimgen_check_symbols gen "${ARG_FROM}")
  if(NOT gen_MANIFEST)
    message(FATAL_ERROR "shimgen_check_symbols: the shimgen config disables [outputs] manifest, "
                        "which the checker reads. Remove `manifest = false` from it.")
  endif()

  get_property(command GLOBAL PROPERTY SHIMGEN_COMMAND)
  get_property(has_check GLOBAL PROPERTY SHIMGEN_HAS_CHECK_SYMBOLS)
  if("${has_check}" STREQUAL "")
    execute_process(COMMAND ${command} check-symbols --help
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(has_check TRUE)
    else()
      set(has_check FALSE)
    endif()
    set_property(GLOBAL PROPERTY SHIMGEN_HAS_CHECK_SYMBOLS ${has_check})
  endif()
  if(NOT has_check)
    message(FATAL_ERROR "shimgen_check_symbols: this shimgen has no `check-symbols` command. "
                        "Try: python -m pip install --upgrade shimgen, or configure with "
                        "-DSHIMGEN_CHECK_SYMBOLS=OFF to build without the check.")
  endif()

  set(files "$<TARGET_FILE:${target}>")
  set(relink_on "")
  foreach(extra IN LISTS ARG_EXTRA)
    if(TARGET "${extra}")
      # A target named in EXTRA is built first, so its file exists when the check runs; and its
      # rebuild relinks <target> (LINK_DEPENDS below), so the check of the set runs again.
      add_dependencies("${target}" "${extra}")
      list(APPEND files "$<TARGET_FILE:${extra}>")
      list(APPEND relink_on "$<TARGET_FILE:${extra}>")
    elseif(extra MATCHES "^\\$<" OR IS_ABSOLUTE "${extra}")
      list(APPEND files "${extra}")
    else()
      list(APPEND files "${CMAKE_CURRENT_BINARY_DIR}/${extra}")
    endif()
  endforeach()
  set(arguments check-symbols ${files} --manifest "${gen_MANIFEST}")
  if(ARG_STRICT)
    list(APPEND arguments --strict)
  endif()
  # REQUIRED: what this build must hold, when one config serves several (CPU-only and CUDA).
  foreach(glob IN LISTS ARG_REQUIRED)
    list(APPEND arguments --required "${glob}")
  endforeach()

  # The command goes through a generated script (genexes expanded per configuration) rather than
  # onto the POST_BUILD line, so a failed check can also move the binary aside: otherwise a
  # Makefile build would see an up-to-date file next time and skip the check.
  get_property(cmake_dir GLOBAL PROPERTY SHIMGEN_CMAKE_DIR)
  set(script "${CMAKE_CURRENT_BINARY_DIR}/shimgen_check/${target}$<$<BOOL:$<CONFIG>>:-$<CONFIG>>.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT
"set(SHIMGEN_CHECK_TARGET [==[${target}]==])
set(SHIMGEN_CHECK_FILE [==[$<TARGET_FILE:${target}>]==])
set(SHIMGEN_CHECK_COMMAND [==[${command};${arguments}]==])
include([==[${cmake_dir}/shimgenCheckRun.cmake]==])
")
  # The check runs after <target> links. Relink it, so the check runs again, when what is checked
  # changes without <target> changing: a binary of EXTRA rebuilt (a test that now calls something
  # the library hides), or the checked set or options edited (the script's content).
  set_property(TARGET "${target}" APPEND PROPERTY LINK_DEPENDS "${script}" ${relink_on})
  add_custom_command(TARGET "${target}" POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -P "${script}"
    COMMENT "shimgen: checking the symbols of ${target}"
    VERBATIM)
endfunction()
