// What `invalidate` notes take out of a ledger's history: whole runs or results, or some benches
// of a run (docs/ledger.md, "Notes"). Histories and trends leave these points out.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::ledger {

struct Invalidated {
  std::set<std::string> whole;                           // run or result ids
  std::map<std::string, std::set<std::string>> benches;  // run id → benches

  explicit Invalidated(const std::vector<NoteRecord>& notes) {
    for (const NoteRecord& note : notes) {
      if (note.kind != NoteKind::invalidate) continue;
      if (note.bench) {
        benches[note.target].insert(*note.bench);
      } else {
        whole.insert(note.target);
      }
    }
  }

  bool covers(const std::string& run_id, const std::string& result_id,
              const std::string& bench) const {
    if (whole.count(run_id) != 0 || whole.count(result_id) != 0) return true;
    const auto it = benches.find(run_id);
    return it != benches.end() && it->second.count(bench) != 0;
  }
  bool covers(const std::string& run_id, const ResultRecord& result) const {
    return covers(run_id, result.header.id, result.bench);
  }
};

}  // namespace benchledger::ledger
