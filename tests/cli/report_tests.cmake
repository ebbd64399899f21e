# `benchledger report` end to end: the CLI on a real ledger, and the HTML in headless Chromium.
benchledger_add_test(report_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_cli_test.cpp
                     ${PROJECT_SOURCE_DIR}/tests/unit/report/fixtures.cpp LABELS cli)
benchledger_add_test(report_html_browser_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_html_browser_test.cpp
                     ${PROJECT_SOURCE_DIR}/tests/unit/report/fixtures.cpp LABELS cli)
# `report -o` onto links, hard links, FIFOs and devices (the helper every -o writes through).
benchledger_add_test(report_output_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_output_test.cpp
                     LABELS cli)
add_dependencies(report_output_test benchledger_cli)
