// What a ledger holds, counted for the reliability tests: each record id once, the runs, and
// the number of results each run has.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>

#include <benchledger/ledger.hpp>

namespace benchledger::testing {

struct Census {
  std::map<std::string, int> results_of_run;  // every run present, with its result count
  std::set<std::string> duplicate_ids;
  std::size_t records = 0;
};

inline Census take_census(const std::string& uri) {
  Census census;
  std::set<std::string> ids;
  ledger::open_store(uri)->scan([&](const ledger::StoredRecord& stored) {
    ++census.records;
    const std::string& id = header_of(stored.record).id;
    if (!ids.insert(id).second) census.duplicate_ids.insert(id);
    if (std::holds_alternative<RunRecord>(stored.record)) census.results_of_run[id] += 0;
    if (const auto* result = std::get_if<ResultRecord>(&stored.record)) {
      ++census.results_of_run[result->run];
    }
    return true;
  });
  return census;
}

// The `ack ID` (or `begin ID`) lines of an appender's output.
inline std::set<std::string> announced(const std::string& output, const std::string& word) {
  std::set<std::string> ids;
  std::istringstream in(output);
  std::string first, id;
  while (in >> first >> id) {
    if (first == word) ids.insert(id);
  }
  return ids;
}

}  // namespace benchledger::testing
