# Values with units printed alike by run, ledger show, compare and report.
benchledger_add_test(units_everywhere_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/units_everywhere_test.cpp LABELS cli)
