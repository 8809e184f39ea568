# Finds the shimgen command line that belongs to this package directory.
include_guard(GLOBAL)

# _shimgen_try_command(<out> <package-cmake-dir> <command>...): sets <out> to "match" when the
# command runs and its `cmake-dir` is <package-cmake-dir>, "other" when it runs but belongs to
# another installation, "" when it does not run (or lacks the generator's dependencies).
function(_shimgen_try_command out cmake_dir)
  execute_process(
    COMMAND ${ARGN} --version
    RESULT_VARIABLE version_rc OUTPUT_VARIABLE version_text ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT version_rc EQUAL 0 OR NOT version_text MATCHES "^shimgen ")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  execute_process(
    COMMAND ${ARGN} cmake-dir
    RESULT_VARIABLE dir_rc OUTPUT_VARIABLE dir_text ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT dir_rc EQUAL 0)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  file(REAL_PATH "${dir_text}" found_dir)
  file(REAL_PATH "${cmake_dir}" want_dir)
  if(found_dir STREQUAL want_dir)
    set(${out} "match" PARENT_SCOPE)
  else()
    set(${out} "other" PARENT_SCOPE)
  endif()
endfunction()

# _shimgen_find_command(<package-cmake-dir>): sets SHIMGEN_COMMAND (a list) in the caller's scope,
# or leaves it empty and sets _SHIMGEN_COMMAND_PROBLEM to a message that says what to do.
# Candidates, in order: SHIMGEN_EXECUTABLE (the user's choice wins); the `shimgen` script of the
# environment this package is installed in; `<python> -m shimgen` for the Pythons CMake already
# knows (scikit-build-core sets Python_EXECUTABLE), run with this package on PYTHONPATH so a source
# checkout works uninstalled; `shimgen` on PATH.
macro(_shimgen_find_command _shimgen_cmake_dir)
  set(SHIMGEN_COMMAND "")
  set(_SHIMGEN_COMMAND_PROBLEM "")
  if(DEFINED SHIMGEN_EXECUTABLE AND NOT "${SHIMGEN_EXECUTABLE}" STREQUAL "")
    _shimgen_try_command(_shimgen_status "${_shimgen_cmake_dir}" ${SHIMGEN_EXECUTABLE})
    if(_shimgen_status)
      set(SHIMGEN_COMMAND ${SHIMGEN_EXECUTABLE})
    else()
      string(CONCAT _SHIMGEN_COMMAND_PROBLEM
          "SHIMGEN_EXECUTABLE='${SHIMGEN_EXECUTABLE}' does not run `shimgen --version`. "
          "Point it at the shimgen script, or unset it to search automatically.")
    endif()
  else()
    _shimgen_candidates(_shimgen_candidates "${_shimgen_cmake_dir}")
    set(_shimgen_fallback "")
    foreach(_shimgen_candidate IN LISTS _shimgen_candidates)
      string(REPLACE "|" ";" _shimgen_candidate_command "${_shimgen_candidate}")
      _shimgen_try_command(_shimgen_status "${_shimgen_cmake_dir}" ${_shimgen_candidate_command})
      if(_shimgen_status STREQUAL "match")
        set(SHIMGEN_COMMAND ${_shimgen_candidate_command})
        break()
      elseif(_shimgen_status STREQUAL "other" AND NOT _shimgen_fallback)
        set(_shimgen_fallback "${_shimgen_candidate}")
      endif()
    endforeach()
    if(NOT SHIMGEN_COMMAND AND _shimgen_fallback)
      # A working shimgen from another installation still generates correctly; say which one.
      string(REPLACE "|" ";" SHIMGEN_COMMAND "${_shimgen_fallback}")
      if(NOT shimgen_FIND_QUIETLY)
        message(STATUS "shimgen: using ${_shimgen_fallback} (installed elsewhere than ${_shimgen_cmake_dir})")
      endif()
    endif()
    if(NOT SHIMGEN_COMMAND)
      string(CONCAT _SHIMGEN_COMMAND_PROBLEM
          "Could not run the shimgen command line (looked beside ${_shimgen_cmake_dir}, in the "
          "Python that CMake knows, and on PATH). Try: python -m pip install shimgen (into the "
          "Python environment this build uses), or set SHIMGEN_EXECUTABLE to the shimgen script.")
    endif()
    unset(_shimgen_candidates)
    unset(_shimgen_candidate)
    unset(_shimgen_candidate_command)
    unset(_shimgen_fallback)
  endif()
  unset(_shimgen_status)
endmacro()

# Candidate commands, each a '|'-separated list (';' would flatten the outer list).
function(_shimgen_candidates out cmake_dir)
  get_filename_component(package_dir "${cmake_dir}" DIRECTORY)  # <site-packages>/shimgen or a checkout
  get_filename_component(site_dir "${package_dir}" DIRECTORY)
  get_filename_component(site_name "${site_dir}" NAME)
  set(result "")
  set(pythons "")
  if(site_name MATCHES "^(site|dist)-packages$")
    # A wheel install. venv or --user: <env>/lib/pythonX.Y/site-packages/shimgen/cmake -> <env>/bin;
    # Windows: <env>/Lib/site-packages/shimgen/cmake -> <env>/Scripts.
    set(python_path "${site_dir}")
    get_filename_component(env_dir "${site_dir}/../../.." ABSOLUTE)
    get_filename_component(win_env_dir "${site_dir}/../.." ABSOLUTE)
    foreach(script IN ITEMS "${env_dir}/bin/shimgen" "${win_env_dir}/Scripts/shimgen.exe")
      if(EXISTS "${script}" AND NOT IS_DIRECTORY "${script}")
        list(APPEND result "${script}")
      endif()
    endforeach()
    foreach(python IN ITEMS "${env_dir}/bin/python3" "${win_env_dir}/Scripts/python.exe")
      if(EXISTS "${python}" AND NOT IS_DIRECTORY "${python}")
        list(APPEND pythons "${python}")
      endif()
    endforeach()
  else()
    # A source checkout: this file is <checkout>/shimgen/cmake/ and the package is <checkout>/shimgen/.
    set(python_path "${site_dir}")
  endif()
  foreach(var IN ITEMS Python3_EXECUTABLE Python_EXECUTABLE PYTHON_EXECUTABLE)
    if(DEFINED ${var} AND EXISTS "${${var}}")
      list(APPEND pythons "${${var}}")
    endif()
  endforeach()
  find_program(python_on_path NAMES python3 python NO_CACHE)
  if(python_on_path)
    list(APPEND pythons "${python_on_path}")
  endif()
  list(REMOVE_DUPLICATES pythons)
  foreach(python IN LISTS pythons)
    # `shimgen generate` needs Jinja2: a Python without it would pass --version and fail later.
    execute_process(COMMAND "${python}" -c "import jinja2" RESULT_VARIABLE has_jinja OUTPUT_QUIET ERROR_QUIET)
    if(NOT has_jinja EQUAL 0)
      continue()
    endif()
    # PYTHONPATH makes `-m shimgen` import the package this file belongs to.
    if(CMAKE_VERSION VERSION_LESS 3.25)
      list(APPEND result "${CMAKE_COMMAND}|-E|env|PYTHONPATH=${python_path}|${python}|-m|shimgen")
    else()
      list(APPEND result
           "${CMAKE_COMMAND}|-E|env|--modify|PYTHONPATH=path_list_prepend:${python_path}|${python}|-m|shimgen")
    endif()
  endforeach()
  find_program(shimgen_on_path NAMES shimgen NO_CACHE)
  if(shimgen_on_path)
    list(APPEND result "${shimgen_on_path}")
  endif()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()
