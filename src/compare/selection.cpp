// Run selection over the Store interface; an NDJSON file is opened as a store of its own.
#include "compare/selection.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "ledger/store_scans.hpp"
#include "model/record_parse_fast.hpp"

namespace benchledger::compare {
namespace {

std::set<std::string> invalidated_ids(const std::vector<NoteRecord>& notes) {
  std::set<std::string> ids;
  for (const NoteRecord& note : notes) {
    if (note.kind == NoteKind::invalidate) ids.insert(note.target);
  }
  return ids;
}

// Reads the runs' results into the selection, one at a time: no second copy of a run's results
// on the way.
void load_side(const ledger::Store& store, std::vector<RunRecord> runs, const Keep& keep,
               Selection& selection) {
  if (keep.compared) selection.compared = SideResults({false, keep.metrics});
  for (RunRecord& run : runs) {
    const std::string& id = run.header.id;
    if (keep.compared) {
      // Most results are read from their bytes, without building a ResultRecord: a side of a
      // million results is mostly that reading.
      ledger::scan_results_taking(
          store, id,
          [&](std::string_view bytes) {
            const auto result = model::read_result_fast(bytes);
            if (!result || result->run != id) return false;
            selection.compared.add(*result);
            return true;
          },
          [&](ResultRecord&& result) {
            selection.compared.add(result);
            return true;
          });
    } else {
      store.scan_results(id, [&](ResultRecord&& result) {
        selection.side.results.push_back(std::move(result));
        return true;
      });
    }
    selection.side.runs.push_back(std::move(run));
  }
  selection.side.results.shrink_to_fit();
}

}  // namespace

bool is_file_selector(std::string_view text) {
  return text.find('/') != std::string_view::npos || text.ends_with(".ndjson") ||
         text.ends_with(".jsonl");
}

Selection select_runs(const ledger::Store& store, std::string_view selector_text, std::size_t count,
                      const std::vector<NoteRecord>& notes, const Keep& keep) {
  count = std::max<std::size_t>(count, 1);
  const ledger::RunSelector selector = ledger::parse_run_selector(selector_text);
  Selection selection;
  std::vector<RunRecord> chosen;
  if (selector.kind == ledger::RunSelector::Kind::id) {
    if (auto run = store.find_run(selector)) chosen.push_back(std::move(*run));
  } else {
    // Count back over valid runs only: an invalidated run is as if it had not run.
    ledger::RunSelector every = selector;
    every.back = 0;
    const std::set<std::string> invalidated = invalidated_ids(notes);
    std::vector<RunRecord> runs = store.find_runs(every, SIZE_MAX);
    std::erase_if(runs, [&](const RunRecord& run) { return invalidated.contains(run.header.id); });
    runs = ledger::clean_runs_only(selector, std::move(runs));
    const auto skip = static_cast<std::size_t>(selector.back);
    for (std::size_t i = skip; i < runs.size() && chosen.size() < count; ++i) {
      chosen.push_back(std::move(runs[i]));
    }
  }
  if (chosen.empty()) {
    throw Error(
        fmt::format("run selector \"{}\": no run in {} matches", selector_text, store.uri()));
  }
  if (chosen.size() < count) {
    selection.warnings.push_back(fmt::format(
        "--base-runs {}: only {} \"{}\"; pooling {}", count,
        chosen.size() == 1 ? "1 run matches" : fmt::format("{} runs match", chosen.size()),
        selector_text, chosen.size() == 1 ? "it alone" : "those"));
  }
  load_side(store, std::move(chosen), keep, selection);
  for (const std::string& warning : store.warnings()) selection.warnings.push_back(warning);
  return selection;
}

Selection select_file(const std::string& path, std::size_t count, const Keep& keep) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(
        fmt::format("cannot read {}: not a file (a path selector names an NDJSON file of "
                    "records)",
                    path));
  }
  const std::unique_ptr<ledger::Store> store = ledger::open_store("ndjson:" + path);
  const std::vector<NoteRecord> notes = store->notes();
  ledger::RunSelector latest;
  latest.kind = ledger::RunSelector::Kind::latest;
  latest.text = path;
  std::vector<RunRecord> runs = store->find_runs(latest, std::max<std::size_t>(count, 1));
  if (runs.empty()) throw Error(fmt::format("{}: the file holds no run record", path));
  Selection selection;
  if (runs.size() < count) {
    selection.warnings.push_back(
        fmt::format("--base-runs {}: {} holds only {}; pooling {}", count, path,
                    runs.size() == 1 ? "1 run" : fmt::format("{} runs", runs.size()),
                    runs.size() == 1 ? "it alone" : "those"));
  }
  load_side(*store, std::move(runs), keep, selection);
  selection.notes = notes;
  for (const std::string& warning : store->warnings()) selection.warnings.push_back(warning);
  return selection;
}

}  // namespace benchledger::compare
