#include "gate/rounds.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "model/record_lines.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::gate {
namespace {

// `benchledger run`'s default runs or repetitions when an entry names none.
constexpr int k_default_count = 10;

std::optional<int> parse_count(const std::string& text, const std::string& flag) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || at != end || value < 1) {
    throw Error(fmt::format("{} \"{}\": expected a whole number of at least 1", flag, text));
  }
  return value;
}

}  // namespace

std::vector<std::vector<std::string>> round_arguments(const std::vector<std::string>& entry,
                                                      int rounds) {
  std::vector<std::string> rest;
  std::optional<int> count;
  bool imports = false;
  std::size_t i = 0;
  for (; i < entry.size() && entry[i] != "--"; ++i) {
    const std::string& word = entry[i];
    if (word == "--import" || word.starts_with("--import=")) imports = true;
    bool taken = false;
    for (const std::string flag : {"--runs", "--repetitions"}) {
      if (word == flag) {
        if (i + 1 >= entry.size()) throw Error(flag + " needs a number");
        count = parse_count(entry[++i], flag);
        taken = true;
      } else if (word.starts_with(flag + "=")) {
        count = parse_count(word.substr(flag.size() + 1), flag);
        taken = true;
      }
    }
    if (!taken) rest.push_back(word);
  }
  std::vector<std::vector<std::string>> out;
  if (imports) {
    // An import reads what another harness wrote: nothing to split, every round runs it.
    out.assign(static_cast<std::size_t>(rounds), entry);
    return out;
  }
  const int total = count.value_or(k_default_count);
  const int shares = std::max(1, std::min(rounds, total));
  for (int round = 0; round < shares; ++round) {
    const int share = total / shares + (round < total % shares ? 1 : 0);
    std::vector<std::string> args = rest;
    args.insert(args.end(), {"--repetitions", std::to_string(share)});
    args.insert(args.end(), entry.begin() + static_cast<std::ptrdiff_t>(i), entry.end());
    out.push_back(std::move(args));
  }
  return out;
}

std::optional<std::vector<std::string>> profile_arguments(const std::vector<std::string>& entry,
                                                          const std::string& filter) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (; i < entry.size() && entry[i] != "--"; ++i) {
    const std::string& word = entry[i];
    for (const std::string flag : {"--import", "--pgbench"}) {
      if (word == flag || word.starts_with(flag + "=")) return std::nullopt;
    }
    bool dropped = false;
    for (const std::string flag :
         {"--measure", "--runs", "--repetitions", "--warmup", "--filter"}) {
      if (word == flag) {
        ++i;  // and its value
        dropped = true;
      } else if (word.starts_with(flag + "=")) {
        dropped = true;
      }
    }
    if (!dropped) out.push_back(word);
  }
  out.insert(out.end(), {"--measure", "instructions:valgrind", "--repetitions", "1", "--warmup",
                         "0", "--filter", filter});
  out.insert(out.end(), entry.begin() + static_cast<std::ptrdiff_t>(std::min(i, entry.size())),
             entry.end());
  return out;
}

std::string exact_case_filter(const std::vector<std::pair<std::string, Params>>& cases) {
  const auto escaped = [](const std::string& text) {
    std::string out;
    for (const char c : text) {
      if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
    return out;
  };
  std::string alternatives;
  for (const auto& [bench, params] : cases) {
    std::string name = bench;
    for (const auto& [key, value] : params) name += " " + key + "=" + to_string(value);
    alternatives += (alternatives.empty() ? "" : "|") + escaped(name);
  }
  return "^(" + alternatives + ")$";
}

Round parse_round(const std::string& ndjson, const std::string& origin) {
  Round round;
  bool have_run = false;
  std::size_t number = 0;
  for (Record& record : model::parse_record_lines(ndjson, origin)) {
    ++number;
    if (auto* run = std::get_if<RunRecord>(&record)) {
      if (have_run) throw Error(fmt::format("{}: record {}: a second run record", origin, number));
      round.run = std::move(*run);
      have_run = true;
    } else if (auto* result = std::get_if<ResultRecord>(&record)) {
      if (!have_run)
        throw Error(fmt::format("{}: record {}: a result before the run record", origin, number));
      round.results.push_back(std::move(*result));
    } else {
      throw Error(fmt::format("{}: record {}: a note, where only a run and its results belong",
                              origin, number));
    }
  }
  if (!have_run) throw Error(origin + ": wrote no run record");
  return round;
}

namespace {

bool failed(const ResultRecord& result) {
  return result.primary == "failed";
}

// One metric from the rounds that measured it (at least one): their samples (or values)
// concatenated under the first round's unit and direction. The metadata that decides how compare
// judges it survives: deterministic only when every round says so, since a count mixed with
// timings is no longer one; the counter only when every round names the same one.
Metric pool_metric(const std::vector<const Metric*>& rounds) {
  const Metric& first = *rounds.front();
  std::vector<double> samples;
  bool deterministic = true;
  std::optional<std::string> counter = first.counter;
  for (const Metric* m : rounds) {
    if (m->samples && !m->samples->empty()) {
      samples.insert(samples.end(), m->samples->begin(), m->samples->end());
    } else {
      samples.push_back(m->value);
    }
    deterministic = deterministic && m->deterministic;
    if (m->counter != counter) counter.reset();
  }
  Metric pooled = metric_from_samples(first.unit, first.better, std::move(samples));
  pooled.deterministic = deterministic;
  pooled.counter = deterministic ? counter : std::nullopt;
  return pooled;
}

ResultRecord pool_case(const std::vector<const ResultRecord*>& results, const std::string& run_id) {
  std::vector<const ResultRecord*> measured;
  std::int64_t ops = 0, errors = 0;
  for (const ResultRecord* r : results) {
    ops += r->ops;
    errors += r->errors;
    if (!failed(*r)) measured.push_back(r);
  }
  ResultRecord pooled = measured.empty() ? *results.front() : *measured.front();
  pooled.header.id = new_ulid();
  pooled.header.prev = std::string(k_zero_hash);
  pooled.run = run_id;
  pooled.ops = ops;
  pooled.errors = errors;
  if (measured.size() > 1) {
    std::set<std::string> names;
    for (const ResultRecord* r : measured) {
      for (const auto& [name, metric] : r->metrics) names.insert(name);
    }
    pooled.metrics.clear();
    for (const std::string& name : names) {
      std::vector<const Metric*> rounds;
      for (const ResultRecord* r : measured) {
        const auto found = r->metrics.find(name);
        if (found != r->metrics.end()) rounds.push_back(&found->second);
      }
      pooled.metrics[name] = pool_metric(rounds);
    }
  }
  return pooled;
}

}  // namespace

PooledSide pool_rounds(const std::vector<Round>& rounds, const std::string& label,
                       const std::vector<std::string>& command) {
  if (rounds.empty()) throw Error("no round was measured");
  PooledSide side;
  side.run = rounds.front().run;
  side.run.header.id = new_ulid();
  side.run.header.prev = std::string(k_zero_hash);
  side.run.label = label;
  side.run.command = command;
  side.run.warnings.clear();
  // Rounds repeat the same warnings with other numbers ("the 1-minute load average is 3.1"):
  // one of each, the first round's, is enough.
  const auto shape = [](std::string text) {
    for (char& c : text) {
      if (c >= '0' && c <= '9') c = '#';
    }
    return text;
  };
  std::set<std::string> seen_warnings;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultRecord*>> cases;
  for (const Round& round : rounds) {
    // Entries may measure commands and import another harness's output in one gate.
    if (round.run.source != rounds.front().run.source) side.run.source = "mixed";
    if (round.run.env.fingerprint != side.run.env.fingerprint) {
      const std::string warning =
          "the environment's fingerprint changed between rounds of this side: the rounds did "
          "not all run in the same environment";
      if (seen_warnings.insert(warning).second) side.run.warnings.push_back(warning);
    }
    for (const std::string& warning : round.run.warnings) {
      if (seen_warnings.insert(shape(warning)).second) side.run.warnings.push_back(warning);
    }
    for (const ResultRecord& result : round.results) {
      const std::string key = case_key(result.bench, result.params);
      auto& entry = cases[key];
      if (entry.empty()) order.push_back(key);
      entry.push_back(&result);
    }
  }
  for (const std::string& key : order)
    side.results.push_back(pool_case(cases[key], side.run.header.id));
  return side;
}

namespace {

// A case's centre of each metric in one round of one side: the median of its samples.
using RoundValues = std::map<std::string, double>;

// round -> case key -> metric -> centre, for the rounds of one side that measured a case.
std::map<std::size_t, std::map<std::string, RoundValues>> centres_by_round(
    const std::vector<MeasuredRound>& rounds) {
  std::map<std::size_t, std::map<std::string, RoundValues>> out;
  for (const MeasuredRound& measured : rounds) {
    for (const ResultRecord& result : measured.data.results) {
      if (failed(result)) continue;
      RoundValues& values = out[measured.round][case_key(result.bench, result.params)];
      for (const auto& [name, metric] : result.metrics) {
        values[name] = metric.samples && !metric.samples->empty() ? stats::median(*metric.samples)
                                                                  : metric.value;
      }
    }
  }
  return out;
}

}  // namespace

std::map<std::string, std::map<std::string, compare::RoundCentres>> round_pairs(
    const std::vector<MeasuredRound>& base, const std::vector<MeasuredRound>& head) {
  const auto base_centres = centres_by_round(base);
  const auto head_centres = centres_by_round(head);
  std::map<std::string, std::map<std::string, compare::RoundCentres>> out;
  for (const auto& [round, cases] : base_centres) {
    const auto head_round = head_centres.find(round);
    if (head_round == head_centres.end()) continue;
    for (const auto& [key, metrics] : cases) {
      const auto head_case = head_round->second.find(key);
      if (head_case == head_round->second.end()) continue;
      for (const auto& [name, value] : metrics) {
        const auto head_value = head_case->second.find(name);
        if (head_value == head_case->second.end()) continue;
        compare::RoundCentres& pairs = out[key][name];
        pairs.base.push_back(value);
        pairs.current.push_back(head_value->second);
      }
    }
  }
  return out;
}

}  // namespace benchledger::gate
