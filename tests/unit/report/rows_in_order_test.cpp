// write_rows_in_order: rows made on two threads come out in their order, whatever the count
// against the block size, and an exception from a row reaches the caller.
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "report/rows_in_order.hpp"

namespace {

std::string numbers(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += std::to_string(i) + '\n';
  return text;
}

}  // namespace

TEST_CASE("write_rows_in_order writes every row once, in order") {
  // Around the block (4,096 rows) and its pair: an odd block left alone, a block boundary, many.
  for (const std::size_t count : {0u, 1u, 4095u, 4096u, 4097u, 8192u, 8193u, 12288u, 50001u}) {
    std::ostringstream out;
    benchledger::report::write_rows_in_order(
        out, count, [](std::size_t i, std::string& text) { text += std::to_string(i) + '\n'; });
    INFO(count << " rows");
    CHECK(out.str() == numbers(count));
  }
}

TEST_CASE("write_rows_in_order makes rows on two threads") {
  std::ostringstream out;
  std::mutex lock;
  std::set<std::thread::id> threads;
  benchledger::report::write_rows_in_order(out, 3 * 4096, [&](std::size_t, std::string& text) {
    const std::lock_guard<std::mutex> guard(lock);
    threads.insert(std::this_thread::get_id());
    text += '.';
  });
  CHECK(out.str().size() == 3 * 4096);
  CHECK(threads.size() == 2);
}

TEST_CASE("write_rows_in_order throws what a row throws, on either thread") {
  for (const std::size_t bad : {10u, 4096u + 10u}) {  // the first block's thread, the second's
    std::ostringstream out;
    INFO("row " << bad);
    CHECK_THROWS_WITH(benchledger::report::write_rows_in_order(
                          out, 3 * 4096,
                          [&](std::size_t i, std::string& text) {
                            if (i == bad) throw std::runtime_error("row " + std::to_string(i));
                            text += '.';
                          }),
                      "row " + std::to_string(bad));
  }
}
