// The server and main of the self-benchmarks that need PostgreSQL: tools/self-bench starts a
// throwaway server and names it in BENCHLEDGER_BENCH_PG.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

namespace benchledger::self_bench {

inline std::string postgres_server() {
  const char* uri = std::getenv("BENCHLEDGER_BENCH_PG");
  return uri == nullptr ? std::string() : std::string(uri);
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
