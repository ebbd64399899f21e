// The Store members with a default built on scan() or find_runs(): what a store may override
// with a faster query of its own.
#include <cstdint>
#include <map>

#include <benchledger/ledger.hpp>

#include "ledger/chain.hpp"
#include "ledger/import_plan.hpp"

namespace benchledger::ledger {

void Store::scan_bytes(
    const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const {
  scan([&](const StoredRecord& stored) { return visit(stored.position, stored.bytes); });
}

VerifyReport Store::verify_since(const std::string& saved_head) const {
  SinceVerifier verifier(uri(), "record", saved_head);
  scan_bytes([&](std::int64_t position, std::string_view bytes) {
    verifier.add(position, bytes);
    return true;
  });
  for (auto& warning : warnings()) verifier.warn(std::move(warning));
  return verifier.finish();
}

AppendResult Store::import(const std::vector<Record>& batch) {
  return import(RecordsSource(batch));
}

std::vector<ResultRecord> Store::results_of(const std::string& run_id) const {
  std::vector<ResultRecord> out;
  scan_results(run_id, [&](ResultRecord&& result) {
    out.push_back(std::move(result));
    return true;
  });
  return out;
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
    scan_results(run.header.id, [&](ResultRecord&&) {
      ++listing.results;
      return true;
    });
    listing.run = std::move(run);
    out.push_back(std::move(listing));
  }
  return out;
}

}  // namespace benchledger::ledger
