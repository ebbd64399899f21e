# `benchledger gate` end to end: scratch git repositories gated through the installed binary.
foreach(scenario slower identical failing renamed native gbench config_errors stopped undecided
                 appends concurrent out_refused threshold_raised run_true fewer_runs
                 duet)
  add_test(NAME gate_${scenario}_cli_test
           COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/gate_test.py
                   ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${scenario})
  set_tests_properties(gate_${scenario}_cli_test PROPERTIES LABELS cli)
endforeach()
# The CI templates' own shell (the GitHub action's steps, the GitLab job's script) gating a Go and
# a Python project and posting to a stub of each forge's API; Go's build cache is kept in the
# build tree, so only the first run compiles Go's runtime.
add_test(NAME gate_ci_script_cli_test
         COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/gate_ci_test.py
                 $<TARGET_FILE:benchledger_cli> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/go-cache)
set_tests_properties(gate_ci_script_cli_test PROPERTIES LABELS cli)
# What a gate that fails shows: a crashed benchmark's stderr, a failed build's or prepare's comment,
# a gate.run entry refused before anything is checked out, a killed gate's worktrees removed; where
# a regression's instructions went.
foreach(scenario crash_output step_failed entry_checked killed profiled)
  add_test(NAME gate_${scenario}_cli_test
           COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/gate_test.py
                   ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${scenario})
  set_tests_properties(gate_${scenario}_cli_test PROPERTIES LABELS cli)
endforeach()
# `benchledger bisect` end to end: a scratch repository whose benchmark got 30% slower at one commit.
add_test(NAME bisect_cli_test COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bisect_test.py
                                      $<TARGET_FILE:benchledger_cli>)
set_tests_properties(bisect_cli_test PROPERTIES LABELS cli)
