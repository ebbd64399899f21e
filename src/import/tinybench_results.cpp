// The statistics and names that vitest's and tinybench's output share.
#include "import/tinybench_results.hpp"

#include <vector>

namespace benchledger::import::detail {

NamedCase case_from_name(const std::string& prefix, const std::string& name) {
  NamedCase named;
  std::string rest;
  for (std::size_t at = 0; at < name.size();) {
    const std::size_t start = name.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    std::size_t end = name.find(' ', start);
    if (end == std::string::npos) end = name.size();
    const std::string word = name.substr(start, end - start);
    at = end;
    // key=value with one `=`, neither side empty: `a==b` or `=x` stay words of the name.
    const std::size_t equals = word.find('=');
    if (equals != std::string::npos && equals > 0 && equals + 1 < word.size() &&
        word.find('=', equals + 1) == std::string::npos) {
      named.params[word.substr(0, equals)] = param_value(word.substr(equals + 1));
      continue;
    }
    rest += (rest.empty() ? "" : " ") + word;
  }
  if (prefix.empty())
    named.bench = rest.empty() ? name : rest;
  else
    named.bench = rest.empty() ? prefix : prefix + " > " + rest;
  return named;
}

Metric metric_from_statistics(const json& stats, const StatisticNames& names,
                              const std::string& unit, Better better, const std::string& path,
                              const std::string& origin) {
  const std::string prefix = path.empty() ? "" : path + ".";
  if (const auto samples = stats.find("samples");
      samples != stats.end() && samples->is_array() && !samples->empty()) {
    std::vector<double> values;
    values.reserve(samples->size());
    for (std::size_t s = 0; s < samples->size(); ++s)
      values.push_back(
          number((*samples)[s], prefix + "samples[" + std::to_string(s) + "]", origin));
    return metric_from_samples(unit, better, std::move(values));
  }
  const auto stat = [&](const std::string& key) {
    return number(member(stats, key, path, origin), prefix + key, origin);
  };
  Metric m;
  m.unit = unit;
  m.better = better;
  m.value = stat(names.median);
  m.summary.n = count(member(stats, names.count, path, origin), prefix + names.count, origin);
  m.summary.median = m.value;
  m.summary.mean = stat("mean");
  m.summary.stddev = stat("sd");
  m.summary.min = stat("min");
  m.summary.max = stat("max");
  m.summary.p50 = m.value;
  m.summary.p99 = stat("p99");
  m.summary.p999 = stat("p999");
  return m;
}

json other_statistics(const json& stats, const std::string& unit) {
  json kept = {{"unit", unit}};
  for (const char* key : {"p75", "p995", "rme", "moe", "sem", "variance", "aad", "mad"}) {
    if (const auto value = optional_number(stats, key)) kept[key] = *value;
  }
  return kept;
}

}  // namespace benchledger::import::detail
