// Golden files for report outputs, under tests/unit/report/golden, through the tests' one
// golden-file check (support/golden.hpp).
#pragma once

#include <string>

#include "support/golden.hpp"

namespace benchledger::report::golden {

using test_support::read_file;

// Checks `actual` against golden/<name>; BENCHLEDGER_UPDATE_GOLDEN=1 rewrites it.
inline void check_golden(const std::string& name, const std::string& actual) {
  test_support::check_golden(test_support::tests_dir("unit/report/golden"), name, actual);
}

}  // namespace benchledger::report::golden
