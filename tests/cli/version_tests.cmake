# `--version` names the build's commit, every run records it, and compare names a difference.
add_test(NAME version_cli_test
         COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/version_test.py
                 $<TARGET_FILE_DIR:benchledger_cli> ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION})
set_tests_properties(version_cli_test PROPERTIES LABELS cli)
