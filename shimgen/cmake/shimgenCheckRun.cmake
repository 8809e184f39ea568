# Run by shimgen_check_symbols() after a build (cmake -P): runs the checker; on any finding, moves
# the binary aside, so the next build links and checks it again, and fails the build.
execute_process(COMMAND ${SHIMGEN_CHECK_COMMAND} RESULT_VARIABLE rc)
if(rc EQUAL 0)
  return()
endif()
set(rejected "${SHIMGEN_CHECK_FILE}.shimgen-rejected")
file(REMOVE "${rejected}")
if(EXISTS "${SHIMGEN_CHECK_FILE}")
  file(RENAME "${SHIMGEN_CHECK_FILE}" "${rejected}")
endif()
if(rc EQUAL 1)
  set(why "has the findings listed above")
else()
  set(why "could not be checked (exit ${rc}; see the error above)")
endif()
message(FATAL_ERROR "shimgen_check_symbols: ${SHIMGEN_CHECK_TARGET} ${why}. It was moved to "
                    "${rejected} so that the next build links and checks it again. Fix the build "
                    "(each finding names its fix), or configure with -DSHIMGEN_CHECK_SYMBOLS=OFF.")
