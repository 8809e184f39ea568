# cmake -P shimgenRenameObjects.cmake: the build step of shimgen_prefix_library()'s object route.
#   -DOBJCOPY=<objcopy> -DMAP=<redefine-syms file> -DLISTING=<object list> -DOUT_DIR=<dir> -DRSP=<file>
# Copies every object LISTING names into OUT_DIR with `objcopy --redefine-syms=MAP` (definitions and
# references alike: exact, with no second compile), skipping a copy newer than both its object and
# MAP, and writes RSP, the linker response file naming the copies (rewritten only when it changes,
# so an unchanged list relinks only because an object did).
foreach(variable IN ITEMS OBJCOPY MAP LISTING OUT_DIR RSP)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "shimgenRenameObjects.cmake: -D${variable}=... is missing.")
  endif()
endforeach()
file(STRINGS "${LISTING}" objects)
get_filename_component(base "${LISTING}" DIRECTORY)
file(MAKE_DIRECTORY "${OUT_DIR}")
set(copies "")
set(index 0)
foreach(object IN LISTS objects)
  if(NOT IS_ABSOLUTE "${object}")
    set(object "${base}/${object}")
  endif()
  get_filename_component(name "${object}" NAME)
  # The index keeps objects of the same file name (a/x.c, b/x.c) apart.
  set(copy "${OUT_DIR}/${index}-${name}")
  math(EXPR index "${index} + 1")
  if(NOT EXISTS "${copy}" OR "${object}" IS_NEWER_THAN "${copy}" OR "${MAP}" IS_NEWER_THAN "${copy}")
    execute_process(COMMAND "${OBJCOPY}" "--redefine-syms=${MAP}" "${object}" "${copy}.tmp"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      file(REMOVE "${copy}.tmp")
      message(FATAL_ERROR "shimgen: ${OBJCOPY} --redefine-syms failed on ${object} (exit ${rc}): ${err}")
    endif()
    file(RENAME "${copy}.tmp" "${copy}")
  endif()
  string(APPEND copies "\"${copy}\"\n")
endforeach()
set(old "")
if(EXISTS "${RSP}")
  file(READ "${RSP}" old)
endif()
if(NOT old STREQUAL copies)
  file(WRITE "${RSP}" "${copies}")
endif()
