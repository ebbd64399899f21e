// What a SeriesQuery selects, for every scan_series (store_scans.hpp): the matching of cases and
// runs that the pass over a store's records does in full and the database stores do after their
// indexes narrowed the rows.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <benchledger/record.hpp>

#include "ledger/store_scans.hpp"

namespace benchledger::ledger {

// `since` in the form stored times compare with as text: a date (2026-11-01) as it is, an RFC
// 3339 UTC time (2026-11-01T10:00:00Z, up to six fraction digits) with six fraction digits.
// Throws Error naming the flag for anything else (an offset other than Z, for example).
std::optional<std::string> normalized_since(const std::optional<std::string>& since);

// Whether a result's case matches one of the globs (any case when there are none).
bool case_matches(const std::vector<std::string>& globs, const std::string& bench,
                  const Params& params);

// Whether a run passes the label, branch and since filters.
bool run_matches(const SeriesQuery& query, const RunRecord& run);

// Half-open ranges [low, high) of bench names that hold every bench the globs can match, from
// each glob's literal prefix, for an index range scan; nullopt when some glob starts with a
// wildcard (or there are none), so that only a full scan finds its matches.
std::optional<std::vector<std::pair<std::string, std::string>>> bench_ranges(
    const std::vector<std::string>& globs);

// The cases the globs name exactly, as the bench and params columns hold them (params_text), when
// every glob is a whole case key without a wildcard (`sort/uniform{"n":2000}`), so that a query
// can read each case's range of an index on (bench, params) alone; nullopt otherwise.
std::optional<std::vector<std::pair<std::string, std::string>>> exact_cases(
    const std::vector<std::string>& globs);

}  // namespace benchledger::ledger
