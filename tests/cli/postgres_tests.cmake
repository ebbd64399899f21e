# `run --pg`, the postgres suite and pgbench against real servers (docs/postgres.md).
benchledger_add_test(run_postgres_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_postgres_test.cpp LABELS cli postgres)
