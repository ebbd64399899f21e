// Interleaved measurement (docs/ci-gate.md, "Interleaving"): each `gate.run` entry's runs or
// repetitions are split into rounds, base and head are measured in pairs of rounds, and each side's
// rounds are pooled into one run with one result per case, as if measured in one go.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"

namespace benchledger::gate {

// The arguments of `benchledger run` for each round of one `gate.run` entry. The entry's
// --runs/--repetitions N (default 10) is split into min(rounds, N) shares that differ by at
// most one, each given as --repetitions; an entry that imports (--import) is run whole in
// every round. Words after `--` belong to the command and are left alone. Throws Error when
// the entry's count is not a whole number.
std::vector<std::vector<std::string>> round_arguments(const std::vector<std::string>& entry,
                                                      int rounds);

// The arguments of `benchledger run` that count, once and under callgrind, the cases of one
// gate.run entry that `filter` matches: the entry without its own --measure, --runs,
// --repetitions, --warmup and --filter (words after `--` left alone), then `--measure
// instructions:valgrind --repetitions 1 --warmup 0 --filter FILTER`. Nothing for an entry that
// imports another harness's results (--import, --pgbench): nothing of it runs under Valgrind.
std::optional<std::vector<std::string>> profile_arguments(const std::vector<std::string>& entry,
                                                          const std::string& filter);

// A --filter that matches exactly the cases `cases` (bench and params) by the name `run` gives
// each (`bench key=value …`).
std::string exact_case_filter(const std::vector<std::pair<std::string, Params>>& cases);

// What one round of one side wrote: `benchledger run --dry-run --format json` records.
struct Round {
  RunRecord run;
  std::vector<ResultRecord> results;
};

// Parses a round's NDJSON output: one run record, then its results. Throws Error naming the
// line on anything else.
Round parse_round(const std::string& ndjson, const std::string& origin);

struct PooledSide {
  RunRecord run;
  std::vector<ResultRecord> results;
};

// One run for a side's rounds: the first round's run record (environment, git state, source)
// with a new id, `label`, `command` and the rounds' warnings, once each (warnings that differ
// only in their digits count as one: the first is kept); one result per case
// (bench + params), in the order cases first appear. A metric's samples are the rounds'
// samples concatenated (a metric without samples gives its value) and its summary is
// computed anew, under the first round's unit and direction; percentiles, which cannot be
// pooled from summaries, are kept only when a single round measured the case. A metric stays
// deterministic (judged by compare's deterministic threshold alone) only when it is
// deterministic in every round that has it, and keeps its counter only when all of those name
// the same one; nothing finer (a count pooled with timings is simply not deterministic). ops and
// errors are summed. A case that failed in every round stays a failed result (the first round's
// failure); one that failed in some rounds only keeps their errors. Throws Error when there are no
// rounds.
PooledSide pool_rounds(const std::vector<Round>& rounds, const std::string& label,
                       const std::vector<std::string>& command);

// A round of one side as the gate measured it: which gate.run entry, which round (pair), and
// what it wrote.
struct MeasuredRound {
  std::size_t entry = 0, round = 0;
  Round data;
};

// The pairs of rounds of every case (case_key) and metric, for compare's paired test: for each
// round that both sides measured the case in, without failing, the median of each side's samples
// of the metric in that round (a metric without samples gives its value), in round order. A
// metric some pair lacks on a side keeps the pairs that have it on both.
std::map<std::string, std::map<std::string, compare::RoundCentres>> round_pairs(
    const std::vector<MeasuredRound>& base, const std::vector<MeasuredRound>& head);

}  // namespace benchledger::gate
