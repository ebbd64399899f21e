// What a comparison reads of one side's results (compare_sides, docs/statistics.md), kept
// compactly: of each result its id, case, primary metric, ops, errors, why it failed, and the
// values of the metrics it is compared on. A side of a million results then takes about 100 bytes
// a result instead of a whole ResultRecord's 850 or so, and can be filled as a store reads the
// results one at a time (Store::scan_results). A case takes its key (bench and params), its
// params, and a slot in an open-addressing index: some 250 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <benchledger/record.hpp>

#include "model/record_parse_fast.hpp"

namespace benchledger::compare {

class SideResults {
 public:
  // Which metrics of each result add() keeps: every one, or those named (each result's primary
  // alone when none is named).
  struct Kept {
    bool all = true;
    std::vector<std::string> names;
  };

  // A metric of one result: its values are the samples, or the value when it has none.
  struct MetricValues {
    std::string_view unit;
    Better better = Better::lower;
    bool deterministic = false;  // Metric::deterministic
    std::span<const double> values;
  };

  SideResults() = default;  // keeps every metric
  explicit SideResults(Kept kept);

  // Adds a result after those added before: a side's results go in order, runs newest first and
  // each run's results as appended, and pool in that order. Throws std::bad_alloc only.
  void add(const ResultRecord& result);
  // The same for a result read on parse_record()'s fast path (model::read_result_fast).
  void add(const model::ResultView& result);

  std::size_t size() const { return m_results.size(); }

  // The cases, numbered in the order their first result came.
  std::size_t case_count() const { return m_cases.size(); }
  const std::string& case_key(std::size_t c) const { return m_cases[c].key; }
  // The key's beginning: a case key is the bench followed by the canonical params.
  std::string_view bench(std::size_t c) const {
    return std::string_view(m_cases[c].key).substr(0, m_cases[c].bench_size);
  }
  const Params& params(std::size_t c) const { return m_cases[c].params; }

  // The result numbered `r` (0-based, in the order added).
  std::size_t case_of(std::size_t r) const { return m_results[r].case_index; }
  std::string_view id(std::size_t r) const;
  std::string_view primary(std::size_t r) const { return m_strings[m_results[r].primary]; }
  std::int64_t ops(std::size_t r) const { return m_results[r].ops; }
  std::int64_t errors(std::size_t r) const { return m_results[r].errors; }
  // A failed result's `error: message` (model::describe), or nothing for one that measured.
  std::optional<std::string_view> failure(std::size_t r) const;
  // A failed result's last lines of stderr (model::ResultFailure::output); empty when it has none.
  std::string_view failure_output(std::size_t r) const;

  // The number a metric name has on this side, or nothing when no result kept it.
  std::optional<std::uint32_t> metric_number(std::string_view name) const;
  // The metric numbered `metric` of result `r`, or nothing when the result has no such metric.
  std::optional<MetricValues> metric(std::size_t r, std::uint32_t metric) const;

 private:
  static constexpr std::uint32_t k_none = UINT32_MAX;

  struct Case {
    std::string key;
    std::size_t bench_size = 0;
    Params params;
  };
  struct Result {
    std::uint32_t case_index = 0;
    std::uint32_t primary = 0;  // into m_strings
    std::uint32_t failure = k_none;
    std::uint32_t failure_output = k_none;
    std::uint32_t metrics_end = 0;  // into m_metrics; the result's begin where the last one's ends
    std::int64_t ops = 0, errors = 0;
    std::size_t id_end = 0;  // into m_ids
  };
  struct KeptMetric {
    std::uint32_t name = 0, unit = 0;  // into m_strings
    Better better = Better::lower;
    bool deterministic = false;
    std::size_t values_end = 0;  // into m_values; the metric's begin where the last one's ends
  };
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  using TextIndex = std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>>;

  std::uint32_t intern(std::string_view text);
  // The number of the case with this key, a new one (bench and params) when there is none.
  std::uint32_t case_number(std::string&& key, const std::string& bench, const Params& params);
  template <class Metrics>
  void add_result(std::string_view id, const std::string& bench, const Params& params,
                  std::string_view primary, const nlohmann::json& extra, std::int64_t ops,
                  std::int64_t errors, const Metrics& metrics);
  void keep_metric(std::string_view name, const Metric& metric);

  Kept m_kept;
  std::vector<Case> m_cases;
  // Case numbers by their key's hash, linear probing, k_none for an empty slot; never more than
  // half full. A map of keys would hold each key twice, and a node a case.
  std::vector<std::uint32_t> m_case_slots;
  std::vector<Result> m_results;
  std::string m_ids;  // every result's id, one after the other
  std::vector<KeptMetric> m_metrics;
  std::vector<double> m_values;
  std::vector<std::string> m_strings;  // metric names, units, primaries, failures: few distinct
  TextIndex m_string_index;
};

}  // namespace benchledger::compare
