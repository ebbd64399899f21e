# No credential kept or printed, no output lost without an error, no bad flag taken: the
# end-to-end checks of what a hostile or careless command line gets.
benchledger_add_test(hygiene_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/hygiene_test.cpp LABELS cli)
# Every spelling of a secret that docs/records.md names, planted in real runs, scanned for in
# every store and output.
benchledger_add_test(redaction_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/redaction_test.cpp LABELS cli)
