// Rows made in blocks on two threads, written in order (rows_in_order.hpp).
#include "report/rows_in_order.hpp"

#include <algorithm>
#include <future>

namespace benchledger::report {

void write_rows_in_order(std::ostream& out, std::size_t count,
                         const std::function<void(std::size_t, std::string&)>& row) {
  // A block is large enough that starting a thread for it costs nothing against making it, and
  // small enough that two of them in memory do not count against a million rows.
  constexpr std::size_t k_block = 4096;
  const auto make = [&](std::size_t begin, std::string& text) {
    text.clear();
    for (std::size_t i = begin; i < std::min(count, begin + k_block); ++i) row(i, text);
  };
  const auto write = [&](const std::string& text) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  };
  std::string first, second;
  for (std::size_t begin = 0; begin < count; begin += 2 * k_block) {
    const std::size_t next = begin + k_block;
    std::future<void> other;
    if (next < count) other = std::async(std::launch::async, [&, next] { make(next, second); });
    make(begin, first);
    if (other.valid()) other.get();
    write(first);
    if (next < count) write(second);
  }
}

}  // namespace benchledger::report
