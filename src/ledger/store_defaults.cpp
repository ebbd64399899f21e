// The Store members with a default built on scan() or find_runs(): what a store may override
// with a faster query of its own.
#include <cstdint>
#include <map>

#include <benchledger/ledger.hpp>

namespace benchledger::ledger {

void Store::scan_bytes(
    const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const {
  scan([&](const StoredRecord& stored) { return visit(stored.position, stored.bytes); });
}

std::optional<RunRecord> Store::find_run(const RunSelector& selector) const {
  if (selector.kind == RunSelector::Kind::git) {
    // Count back over clean runs only: the stores' find_runs match the commit alone.
    RunSelector every = selector;
    every.back = 0;
    auto runs = clean_runs_only(selector, find_runs(every, SIZE_MAX));
    const auto back = static_cast<std::size_t>(selector.back);
    if (back >= runs.size()) return std::nullopt;
    return std::move(runs[back]);
  }
  auto runs = find_runs(selector, 1);
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

std::optional<StoredRecord> Store::find_record(const std::string& id) const {
  std::optional<StoredRecord> found;
  scan([&](const StoredRecord& stored) {
    if (header_of(stored.record).id != id) return true;
    found = stored;
    return false;
  });
  return found;
}

std::vector<RunListing> Store::log(std::size_t limit) const {
  RunSelector all;
  std::vector<RunListing> out;
  for (auto& run : find_runs(all, limit == 0 ? SIZE_MAX : limit)) {
    RunListing listing;
    listing.results = static_cast<std::int64_t>(results_of(run.header.id).size());
    listing.run = std::move(run);
    out.push_back(std::move(listing));
  }
  return out;
}

}  // namespace benchledger::ledger
