// Choosing the runs to compare (docs/design.md, "The command line"): a run id, a label (the
// newest run with it; `label~N` for older ones), `git:COMMIT`, `latest`, `latest~N`, or the
// path of an NDJSON file (its newest run).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "compare/comparison.hpp"

namespace benchledger::compare {

// Whether a selector names an NDJSON file rather than runs of the ledger: it ends in
// `.ndjson` or `.jsonl`, or contains a '/'. (Labels can hold neither a '/' nor a '.ndjson'
// ending that a user would mistake.)
bool is_file_selector(std::string_view text);

// What a side keeps of each result: everything (a report renders it), or only what
// compare_sides() reads (`compared`: a SideResults that keeps, of the metrics, those named in
// `metrics`, or each result's primary when none is), so that a side of a million results fits in
// memory.
struct Keep {
  bool compared = false;
  std::vector<std::string> metrics;
};

struct Selection {
  Side side;                          // the runs, and their results unless Keep::compared
  SideResults compared;               // with Keep::compared, the results instead
  std::vector<NoteRecord> notes;      // notes of the file, for a file selector
  std::vector<std::string> warnings;  // fewer runs than asked, a torn tail, ...
};

// The newest `count` runs (at least 1) that match `selector` in `store`, counting from the
// one the selector names (`baseline~1` with count 3: the 2nd, 3rd and 4th newest baselines),
// skipping runs that an `invalidate` note in `notes` targets unless the selector is a run id.
// Throws benchledger::Error naming the selector when no run matches.
Selection select_runs(const ledger::Store& store, std::string_view selector, std::size_t count,
                      const std::vector<NoteRecord>& notes, const Keep& keep = {});

// The newest `count` runs of an NDJSON file, with the file's notes. Throws benchledger::Error
// when the file cannot be read, is not valid, or holds no run.
Selection select_file(const std::string& path, std::size_t count, const Keep& keep = {});

}  // namespace benchledger::compare
