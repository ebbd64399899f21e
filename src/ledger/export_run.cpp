// `ledger export --run`: one run and what belongs to it, as a ledger of its own.
#include <set>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

#include "ledger/chain.hpp"

namespace benchledger::ledger {

std::vector<std::string> export_run(const Store& store, const RunSelector& selector) {
  const auto run = store.find_run(selector);
  if (!run) throw Error("no run matches \"" + selector.text + "\" in " + store.uri());
  std::vector<Record> records;
  records.emplace_back(*run);
  std::set<std::string> ids = {run->header.id};
  for (auto& result : store.results_of(run->header.id)) {
    ids.insert(result.header.id);
    records.emplace_back(std::move(result));
  }
  for (auto& note : store.notes()) {
    if (ids.count(note.target) != 0) records.emplace_back(std::move(note));
  }
  std::vector<PendingRecord> pending = serialize_batch(records);
  chain_onto(pending, std::string(k_zero_hash));
  std::vector<std::string> lines;
  lines.reserve(pending.size());
  for (auto& record : pending) lines.push_back(std::move(record.bytes));
  return lines;
}

}  // namespace benchledger::ledger
