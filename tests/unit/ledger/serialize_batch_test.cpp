// serialize_batch gives the same bytes, in the same order, and names the same first bad record
// whatever the number of threads it spreads a batch over.
#include <catch2/catch.hpp>

#include <benchledger/error.hpp>

#include "ledger/chain.hpp"
#include "ledger_support.hpp"

using namespace benchledger;
using benchledger::ledger::serialize_batch;
using benchledger::testing::fresh_batch;

namespace {

constexpr std::size_t k_thread_counts[] = {1, 2, 3, 7, 100, 1000};

std::string refusal(const std::vector<Record>& batch, std::size_t threads) {
  try {
    serialize_batch(batch, threads);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("serialize_batch writes the same bytes on any number of threads") {
  const auto batch = fresh_batch("threads", 99);
  for (const std::size_t threads : k_thread_counts) {
    INFO(threads << " threads");
    const auto pending = serialize_batch(batch, threads);
    REQUIRE(pending.size() == batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      CHECK(pending[i].bytes == serialize(batch[i], k_zero_hash));
      CHECK(pending[i].index == i);
      CHECK(pending[i].id == header_of(batch[i]).id);
    }
  }
}

TEST_CASE("serialize_batch names the first bad record wherever the threads' slices fall") {
  // Index 0 is the run (a bad label), the others results (an empty bench).
  for (const std::vector<std::size_t>& bad :
       std::vector<std::vector<std::size_t>>{{0}, {33}, {99}, {34, 66}, {50, 51}, {0, 98}}) {
    auto batch = fresh_batch("threads", 99);
    for (const std::size_t i : bad) {
      if (i == 0) {
        std::get<RunRecord>(batch[0]).label = "not a label";
      } else {
        std::get<ResultRecord>(batch[i]).bench = "";
      }
    }
    const std::string field = bad.front() == 0 ? "field \"label\"" : "field \"bench\"";
    for (const std::size_t threads : k_thread_counts) {
      INFO(threads << " threads, first bad record at index " << bad.front());
      CHECK_THAT(refusal(batch, threads),
                 Catch::StartsWith("record " + std::to_string(bad.front() + 1) + " of the batch") &&
                     Catch::Contains(field));
    }
  }
}
