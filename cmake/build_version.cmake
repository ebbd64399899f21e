# Run by the benchledger_build_version target (cmake/version.cmake) on every build: writes
# OUTPUT, the header of the version text, from VERSION and GIT_DESCRIBE (or git's own answer
# when that is empty), touching it only when the text changes.
set(describe "${GIT_DESCRIBE}")
find_program(git_program git)
if(describe STREQUAL "" AND git_program)
  execute_process(COMMAND ${git_program} -C ${SOURCE_DIR} rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  # Only a checkout of benchledger itself: a source tree unpacked inside some other repository
  # (a Conan cache, a packaging tree) would otherwise report that repository's commit.
  if(status EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
    if(top STREQUAL source)
      execute_process(
        COMMAND ${git_program} -C ${SOURCE_DIR} describe --tags --match "v[0-9]*" --always
                --dirty --abbrev=12
        OUTPUT_VARIABLE describe RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_QUIET)
      if(NOT status EQUAL 0)
        set(describe "")
      endif()
    endif()
  endif()
endif()
if(describe STREQUAL "")
  set(BENCHLEDGER_VERSION_TEXT "${VERSION}")
else()
  set(BENCHLEDGER_VERSION_TEXT "${VERSION} (git ${describe})")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_version.h.in ${OUTPUT} @ONLY)
