// The table of bundled suites.
#include "suites/suites.hpp"

namespace benchledger::suites {

const std::vector<Suite>& bundled_suites() {
  static const std::vector<Suite> suites = {
      {"executors",
       "1,000 sorts of fingerprinted vectors (uniform 2,000 and mixed 500-2,000) through a "
       "sequential "
       "loop, all-at-once threads and a bounded pool of 50",
       define_executors},
      {"sqlite",
       "2,000 rows inserted (a transaction per row, and batched) and a window selected, under each "
       "synchronous mode",
       define_sqlite},
      {"pipeline",
       "N pages of 100 records fetched with latency L, transformed and stored back: sequential "
       "against pipelined",
       define_pipeline},
      {"postgres",
       "SELECT 1 on a new connection per operation and on a warmed pool, and pgbench's point read "
       "and small write, at 10, 50 and 100 clients of a PostgreSQL server (--pg, or a throwaway "
       "one)",
       define_postgres},
  };
  return suites;
}

const Suite* find_suite(std::string_view name) {
  for (const Suite& suite : bundled_suites()) {
    if (suite.name == name) return &suite;
  }
  return nullptr;
}

}  // namespace benchledger::suites
