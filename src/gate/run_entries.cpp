#include "gate/run_entries.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace benchledger::gate {

std::vector<RunEntry> run_entries(const GateSpec& reference, const GateSpec* head) {
  std::vector<RunEntry> out;
  for (std::size_t i = 0; i < reference.run.size(); ++i) {
    RunEntry& entry = out.emplace_back(RunEntry{reference.run[i], reference.run_text[i]});
    entry.removed_by_head = head != nullptr && std::find(head->run.begin(), head->run.end(),
                                                         reference.run[i]) == head->run.end();
  }
  if (head == nullptr) return out;
  for (std::size_t i = 0; i < head->run.size(); ++i) {
    if (std::find(reference.run.begin(), reference.run.end(), head->run[i]) !=
        reference.run.end()) {
      continue;
    }
    RunEntry& entry = out.emplace_back(RunEntry{head->run[i], head->run_text[i]});
    entry.head_only = true;
  }
  return out;
}

std::optional<std::string> keep_head_results(const RunEntry& entry, Round& round,
                                             std::set<std::string>& base_entry_cases) {
  std::vector<std::string> left_out;
  const auto leave_out = [&](const auto& rule) {
    auto& results = round.results;
    const auto kept = std::stable_partition(results.begin(), results.end(),
                                            [&](const ResultRecord& r) { return !rule(r); });
    for (auto it = kept; it != results.end(); ++it) left_out.push_back(it->bench);
    results.erase(kept, results.end());
  };
  if (entry.head_only) {
    leave_out([&](const ResultRecord& r) {
      return base_entry_cases.contains(case_key(r.bench, r.params));
    });
    if (left_out.empty()) return std::nullopt;
    return fmt::format(
        "gate.run entry \"{}\", which only the head's benchledger.json has, measures {}, which "
        "base's entries measure: its results of it are left out",
        entry.text, fmt::join(left_out, ", "));
  }
  for (const ResultRecord& r : round.results) base_entry_cases.insert(case_key(r.bench, r.params));
  if (!entry.removed_by_head) return std::nullopt;
  leave_out([](const ResultRecord& r) { return r.primary == "failed"; });
  if (left_out.empty()) return std::nullopt;
  return fmt::format(
      "gate.run entry \"{}\", which the head's benchledger.json no longer has, failed on head for "
      "{}: the head stopped running it, so it is missing there",
      entry.text, fmt::join(left_out, ", "));
}

}  // namespace benchledger::gate
