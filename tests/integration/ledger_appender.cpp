// A test helper for the ledger's reliability tests: appends BATCHES batches (a run and RESULTS
// results each) to the ledger at URI through the library, announcing each batch on stdout with
// `begin RUN_ID` before append() and `ack RUN_ID` after it returned. A parent kills it at random
// moments and checks the ledger against what was acknowledged.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "unit/ledger/ledger_support.hpp"

namespace {

// Unbuffered, so that an `ack` is out before the next batch begins.
void say(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(1, text.data() + done, text.size() - done);
    if (wrote <= 0) std::exit(3);
    done += static_cast<std::size_t>(wrote);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: ledger_appender URI BATCHES RESULTS LABEL\n");
    return 2;
  }
  try {
    const auto store = benchledger::ledger::open_store(argv[1]);
    const int batches = std::atoi(argv[2]);
    const int results = std::atoi(argv[3]);
    for (int i = 0; i < batches; ++i) {
      const auto batch = benchledger::testing::fresh_batch(argv[4], results);
      const std::string id = benchledger::header_of(batch[0]).id;
      say("begin " + id);
      store->append(batch);
      say("ack " + id);
    }
  } catch (const benchledger::Error& e) {
    std::fprintf(stderr, "ledger_appender: %s\n", e.what());
    return 2;
  }
  return 0;
}
