# `benchledger run` end to end: commands, bundled suites, a BENCHLEDGER_MAIN program and imports.
benchledger_add_test(run_command_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_command_test.cpp LABELS cli)
benchledger_add_test(run_suite_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_suite_test.cpp LABELS cli)

add_executable(run_native_fixture ${CMAKE_CURRENT_LIST_DIR}/run_native_fixture.cpp)
target_link_libraries(run_native_fixture PRIVATE benchledger_main benchledger_settings)
benchledger_add_test(run_native_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_native_test.cpp LABELS cli)
target_compile_definitions(run_native_cli_test PRIVATE
                           RUN_NATIVE_FIXTURE="$<TARGET_FILE:run_native_fixture>")
add_dependencies(run_native_cli_test run_native_fixture)

add_executable(run_gbench_fixture ${CMAKE_CURRENT_LIST_DIR}/run_gbench_fixture.cpp)
target_link_libraries(run_gbench_fixture PRIVATE benchmark::benchmark)
benchledger_add_test(run_import_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_test.cpp LABELS cli)
target_compile_definitions(run_import_cli_test PRIVATE
                           RUN_GBENCH_FIXTURE="$<TARGET_FILE:run_gbench_fixture>")
add_dependencies(run_import_cli_test run_gbench_fixture)
# The build type a BENCHLEDGER_MAIN program reports from its own NDEBUG.
target_compile_definitions(run_native_cli_test PRIVATE
                           BENCHLEDGER_EXPECTED_BUILD_TYPE="$<IF:$<CONFIG:Debug>,Debug,Release>")
# The real harnesses' outputs: go test (Debian's golang-go), pytest-benchmark and pyperf from the
# project's .venv (tools/setup), and the google-benchmark fixture above.
benchledger_add_test(run_import_harness_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_harness_test.cpp LABELS cli)
target_compile_definitions(run_import_harness_cli_test PRIVATE
                           RUN_GBENCH_FIXTURE="$<TARGET_FILE:run_gbench_fixture>")
add_dependencies(run_import_harness_cli_test run_gbench_fixture)
# A team's own NDJSON and CSV logs read through --map.
benchledger_add_test(run_import_mapped_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_mapped_test.cpp LABELS cli)
# The committed outputs of Catch2 and asv (tests/cli/import/regenerate.sh).
benchledger_add_test(run_import_fixture_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_fixture_test.cpp LABELS cli)
# vitest's and tinybench's committed outputs (tests/cli/import/regenerate.sh vitest tinybench).
benchledger_add_test(run_import_node_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_node_test.cpp LABELS cli)
# Outputs cut short: refused naming what is missing, or kept in part with --allow-partial.
benchledger_add_test(run_import_cut_short_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_cut_short_test.cpp LABELS cli)
# Inputs nested too deep or holding numbers no double holds, in every importer.
benchledger_add_test(run_import_limits_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_import_limits_test.cpp LABELS cli)

# --measure instructions under the real Valgrind (Debian's valgrind package, tools/setup).
add_executable(run_instructions_fixture ${CMAKE_CURRENT_LIST_DIR}/run_instructions_fixture.cpp)
target_link_libraries(run_instructions_fixture PRIVATE benchledger_main benchledger_settings)
benchledger_add_test(run_instructions_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_instructions_test.cpp LABELS cli)
add_executable(valgrind_unknown_instruction_fixture
               ${CMAKE_CURRENT_LIST_DIR}/valgrind_unknown_instruction_fixture.cpp)
target_link_libraries(valgrind_unknown_instruction_fixture PRIVATE benchledger_settings)
target_compile_definitions(
  run_instructions_cli_test
  PRIVATE RUN_INSTRUCTIONS_FIXTURE="$<TARGET_FILE:run_instructions_fixture>"
          VALGRIND_UNKNOWN_INSTRUCTION_FIXTURE="$<TARGET_FILE:valgrind_unknown_instruction_fixture>")
add_dependencies(run_instructions_cli_test run_instructions_fixture
                 valgrind_unknown_instruction_fixture)

# Profiles kept beside the counts and `benchledger explain`, under the real Valgrind. The fixture
# twice: as written, and with base_work inlined into main (a head that inlines differently).
add_executable(explain_fixture ${CMAKE_CURRENT_LIST_DIR}/explain_fixture.cpp)
add_executable(explain_fixture_inlined ${CMAKE_CURRENT_LIST_DIR}/explain_fixture.cpp)
target_compile_definitions(explain_fixture_inlined PRIVATE EXPLAIN_FIXTURE_INLINED)
foreach(fixture explain_fixture explain_fixture_inlined)
  target_compile_options(${fixture} PRIVATE -g)
  target_link_libraries(${fixture} PRIVATE benchledger_settings)
endforeach()
benchledger_add_test(explain_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/explain_test.cpp LABELS cli)
target_compile_definitions(
  explain_cli_test PRIVATE EXPLAIN_FIXTURE="$<TARGET_FILE:explain_fixture>"
                           EXPLAIN_FIXTURE_INLINED="$<TARGET_FILE:explain_fixture_inlined>")
add_dependencies(explain_cli_test explain_fixture explain_fixture_inlined)
# The same for a Go program, built by the test; Go's build cache is kept in the build tree.
add_test(NAME explain_go_cli_test
         COMMAND ${BENCHLEDGER_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/explain_go_test.py
                 $<TARGET_FILE:benchledger_cli> ${PROJECT_BINARY_DIR}/go-cache)
set_tests_properties(explain_go_cli_test PROPERTIES LABELS cli)
