// The server and main of the self-benchmarks that need PostgreSQL: tools/self-bench starts a
// throwaway server and names it in BENCHLEDGER_BENCH_PG.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <pqxx/pqxx>

#include "ledger/chain.hpp"

namespace benchledger::self_bench {

inline std::string postgres_server() {
  const char* uri = std::getenv("BENCHLEDGER_BENCH_PG");
  return uri == nullptr ? std::string() : std::string(uri);
}

// A new, empty database on the server (an older one of that name is dropped first): its URI.
inline std::string fresh_database(const std::string& name) {
  pqxx::connection admin(postgres_server());
  pqxx::nontransaction txn(admin);
  txn.exec("DROP DATABASE IF EXISTS " + txn.quote_name(name) + " WITH (FORCE)");
  txn.exec("CREATE DATABASE " + txn.quote_name(name));
  const std::string base = postgres_server();
  return base.substr(0, base.rfind('/') + 1) + name;
}

// The floor of an append: a batch's canonical bytes as multi-row INSERTs of 250 rows into
// `raw (seq bigint, bytes text)`, quoted once, before anything is timed.
inline std::vector<std::string> raw_inserts(pqxx::connection& connection,
                                            const std::vector<ledger::PendingRecord>& pending) {
  constexpr std::size_t k_rows = 250;
  std::vector<std::string> statements;
  for (std::size_t from = 0; from < pending.size(); from += k_rows) {
    std::string sql = "INSERT INTO raw (seq, bytes) VALUES ";
    for (std::size_t i = from; i < std::min(pending.size(), from + k_rows); ++i) {
      sql += (i == from ? "(" : ",(") + std::to_string(i) + "," +
             connection.quote(pending[i].bytes) + ")";
    }
    statements.push_back(std::move(sql));
  }
  return statements;
}

// google-benchmark's main, refusing to start (exit 2) without a server.
inline int postgres_bench_main(const char* program, int argc, char** argv) {
  if (postgres_server().empty()) {
    std::fprintf(stderr,
                 "%s: BENCHLEDGER_BENCH_PG is not set (tools/self-bench starts a server and sets "
                 "it)\n",
                 program);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace benchledger::self_bench
