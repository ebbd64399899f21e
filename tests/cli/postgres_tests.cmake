# `run --pg`, the postgres suite and pgbench against real servers (docs/postgres.md).
benchledger_add_test(run_postgres_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_postgres_test.cpp LABELS cli postgres)
# SIGINT and SIGTERM during run: the throwaway server, pgbench and callgrind leave nothing behind;
# pgbench's time limit (docs/postgres.md, docs/engine.md).
benchledger_add_test(run_stop_signals_cli_test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_stop_signals_test.cpp LABELS cli postgres)
