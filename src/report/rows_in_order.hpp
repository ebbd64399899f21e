// Rows of an output made on two threads and written in their order. A comparison of a million
// cases spends about as long making its rows as reading its two sides, and a CI runner has two
// CPUs or more: while one thread makes a block of rows, the other makes the next.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace benchledger::report {

// Writes the rows 0 .. count-1 to `out`, in that order, each made by `row(i, text)`, which
// appends row i to `text`. `row` runs on two threads at once: it may read what nothing writes
// meanwhile, and nothing else. An exception from it is thrown here, once both threads stop.
void write_rows_in_order(std::ostream& out, std::size_t count,
                         const std::function<void(std::size_t, std::string&)>& row);

}  // namespace benchledger::report
