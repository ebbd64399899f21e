// A side's results as the comparison reads them (see side_results.hpp).
#include "compare/side_results.hpp"

#include <algorithm>
#include <utility>

#include "model/failure.hpp"

namespace benchledger::compare {

SideResults::SideResults(Kept kept) : m_kept(std::move(kept)) {}

std::uint32_t SideResults::intern(std::string_view text) {
  if (const auto found = m_string_index.find(text); found != m_string_index.end()) {
    return found->second;
  }
  const auto number = static_cast<std::uint32_t>(m_strings.size());
  m_strings.emplace_back(text);
  m_string_index.emplace(m_strings.back(), number);
  return number;
}

void SideResults::keep_metric(std::string_view name, const Metric& metric) {
  KeptMetric kept;
  kept.name = intern(name);
  kept.unit = intern(metric.unit);
  kept.better = metric.better;
  kept.deterministic = metric.deterministic;
  if (metric.samples && !metric.samples->empty()) {
    m_values.insert(m_values.end(), metric.samples->begin(), metric.samples->end());
  } else {
    m_values.push_back(metric.value);
  }
  kept.values_end = m_values.size();
  m_metrics.push_back(kept);
}

std::uint32_t SideResults::case_number(std::string&& key, const std::string& bench,
                                       const Params& params) {
  const auto slot_of = [this](std::string_view text) {
    return std::hash<std::string_view>{}(text) & (m_case_slots.size() - 1);
  };
  if (2 * (m_cases.size() + 1) > m_case_slots.size()) {
    m_case_slots.assign(std::max<std::size_t>(64, 2 * m_case_slots.size()), k_none);
    for (std::uint32_t c = 0; c < m_cases.size(); ++c) {
      std::size_t slot = slot_of(m_cases[c].key);
      while (m_case_slots[slot] != k_none) slot = (slot + 1) & (m_case_slots.size() - 1);
      m_case_slots[slot] = c;
    }
  }
  std::size_t slot = slot_of(key);
  for (; m_case_slots[slot] != k_none; slot = (slot + 1) & (m_case_slots.size() - 1)) {
    if (m_cases[m_case_slots[slot]].key == key) return m_case_slots[slot];
  }
  const auto number = static_cast<std::uint32_t>(m_cases.size());
  m_cases.push_back({std::move(key), bench.size(), params});
  m_case_slots[slot] = number;
  return number;
}

template <class Metrics>
void SideResults::add_result(std::string_view id, const std::string& bench, const Params& params,
                             std::string_view primary, const nlohmann::json& extra,
                             std::int64_t ops, std::int64_t errors, const Metrics& metrics) {
  Result kept;
  kept.case_index = case_number(benchledger::case_key(bench, params), bench, params);
  kept.primary = intern(primary);
  if (const auto failure = model::failure_of(primary, extra)) {
    kept.failure = intern(model::describe(*failure));
    if (!failure->output.empty()) kept.failure_output = intern(failure->output);
  }
  kept.ops = ops;
  kept.errors = errors;
  m_ids += id;
  kept.id_end = m_ids.size();
  for (const auto& [name, metric] : metrics) {
    const bool wanted =
        m_kept.all || (m_kept.names.empty() ? name == primary
                                            : std::find(m_kept.names.begin(), m_kept.names.end(),
                                                        name) != m_kept.names.end());
    if (wanted) keep_metric(name, metric);
  }
  kept.metrics_end = static_cast<std::uint32_t>(m_metrics.size());
  m_results.push_back(kept);
}

void SideResults::add(const ResultRecord& result) {
  add_result(result.header.id, result.bench, result.params, result.primary, result.header.extra,
             result.ops, result.errors, result.metrics);
}

void SideResults::add(const model::ResultView& result) {
  // The fast path reads records without unknown fields: `extra` is empty, as parse_record()
  // leaves it for them.
  static const nlohmann::json k_no_extra = nlohmann::json::object();
  thread_local std::string bench;
  bench = result.bench;
  add_result(result.id, bench, *result.params, result.primary, k_no_extra, result.ops,
             result.errors, result.metrics);
}

std::string_view SideResults::id(std::size_t r) const {
  const std::size_t begin = r == 0 ? 0 : m_results[r - 1].id_end;
  return std::string_view(m_ids).substr(begin, m_results[r].id_end - begin);
}

std::optional<std::string_view> SideResults::failure(std::size_t r) const {
  if (m_results[r].failure == k_none) return std::nullopt;
  return m_strings[m_results[r].failure];
}

std::string_view SideResults::failure_output(std::size_t r) const {
  if (m_results[r].failure_output == k_none) return {};
  return m_strings[m_results[r].failure_output];
}

std::optional<std::uint32_t> SideResults::metric_number(std::string_view name) const {
  const auto found = m_string_index.find(name);
  if (found == m_string_index.end()) return std::nullopt;
  return found->second;
}

std::optional<SideResults::MetricValues> SideResults::metric(std::size_t r,
                                                             std::uint32_t metric) const {
  const std::uint32_t begin = r == 0 ? 0 : m_results[r - 1].metrics_end;
  for (std::uint32_t m = begin; m < m_results[r].metrics_end; ++m) {
    const KeptMetric& kept = m_metrics[m];
    if (kept.name != metric) continue;
    const std::size_t values_begin = m == 0 ? 0 : m_metrics[m - 1].values_end;
    return MetricValues{
        m_strings[kept.unit], kept.better, kept.deterministic,
        std::span<const double>(m_values).subspan(values_begin, kept.values_end - values_begin)};
  }
  return std::nullopt;
}

}  // namespace benchledger::compare
