// Registration of native benchmarks and their expansion into cases.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>

#include <fmt/format.h>
#include <benchledger/benchledger.hpp>
#include <benchledger/error.hpp>

#include "engine/native.hpp"
#include "model/ranges.hpp"

namespace {

// The same ranges as the flags that override these settings (model/ranges.hpp).
void check_range(const std::string& bench, const char* what, double value,
                 const benchledger::model::NumberRange& range) {
  if (!benchledger::model::contains(range, value)) {
    throw benchledger::Error(fmt::format("benchmark \"{}\": {} must be {}, got {}", bench, what,
                                         benchledger::model::describe(range), value));
  }
}

}  // namespace

namespace benchledger {

Benchmark::Benchmark(std::string name, BenchFunction body)
    : m_name(std::move(name)), m_mode(Mode::bench), m_body(std::move(body)) {
  if (m_name.empty()) throw Error("a benchmark needs a name");
  if (!m_body) throw Error("benchmark \"" + m_name + "\": no function given");
}

Benchmark::Benchmark(std::string name, OpsFactory factory)
    : m_name(std::move(name)), m_mode(Mode::ops), m_factory(std::move(factory)) {
  if (m_name.empty()) throw Error("a benchmark needs a name");
  if (!m_factory) throw Error("benchmark \"" + m_name + "\": no function given");
}

Benchmark& Benchmark::param(const std::string& name, std::initializer_list<ParamArg> values) {
  std::vector<ParamValue> converted;
  converted.reserve(values.size());
  for (const ParamArg& value : values) converted.push_back(value.value());
  return param(name, converted);
}

Benchmark& Benchmark::param(const std::string& name, const std::vector<ParamValue>& values) {
  if (name.empty()) throw Error("benchmark \"" + m_name + "\": a param needs a name");
  if (name == "concurrency") {
    throw Error("benchmark \"" + m_name +
                "\": declare concurrency with .concurrency(), not as a param");
  }
  if (values.empty())
    throw Error("benchmark \"" + m_name + "\": param \"" + name + "\" has no values");
  for (const auto& [existing, unused] : m_params) {
    if (existing == name)
      throw Error("benchmark \"" + m_name + "\": param \"" + name + "\" declared twice");
  }
  m_params.emplace_back(name, values);
  return *this;
}

Benchmark& Benchmark::concurrency(std::initializer_list<int> levels) {
  return concurrency(std::vector<int>(levels));
}

Benchmark& Benchmark::concurrency(const std::vector<int>& levels) {
  if (levels.empty())
    throw Error("benchmark \"" + m_name + "\": concurrency needs at least one level");
  for (int level : levels) {
    if (level < 1 || level > 4096) {
      throw Error("benchmark \"" + m_name + "\": concurrency " + std::to_string(level) +
                  " is outside 1 … 4096");
    }
  }
  m_concurrency = levels;
  return *this;
}

Benchmark& Benchmark::repetitions(int count) {
  check_range(m_name, "repetitions", count, model::k_runs_range);
  m_repetitions = count;
  return *this;
}

Benchmark& Benchmark::warmup(int count) {
  check_range(m_name, "warmup", count, model::k_warmup_range);
  m_warmup = count;
  return *this;
}

Benchmark& Benchmark::min_time(double seconds) {
  check_range(m_name, "min_time", seconds, model::k_min_time_range);
  m_min_time = seconds;
  return *this;
}

Benchmark& Benchmark::timeout(double seconds) {
  check_range(m_name, "timeout", seconds, model::k_timeout_range);
  m_timeout = seconds;
  return *this;
}

Benchmark& Benchmark::ops_per_repetition(std::int64_t count) {
  if (count < 1) throw Error("benchmark \"" + m_name + "\": ops_per_repetition must be at least 1");
  if (!m_total_ops_param.empty())
    throw Error("benchmark \"" + m_name +
                "\": ops_per_repetition and ops_per_case exclude each other");
  m_fixed_ops = count;
  return *this;
}

Benchmark& Benchmark::ops_per_case(const std::string& param) {
  if (param.empty()) throw Error("benchmark \"" + m_name + "\": ops_per_case needs a param name");
  if (m_fixed_ops > 0)
    throw Error("benchmark \"" + m_name +
                "\": ops_per_repetition and ops_per_case exclude each other");
  m_total_ops_param = param;
  return *this;
}

Benchmark& Registry::add(Benchmark benchmark) {
  m_benchmarks.push_back(std::make_unique<Benchmark>(std::move(benchmark)));
  return *m_benchmarks.back();
}

Registry& global_registry() {
  static Registry registry;
  return registry;
}

}  // namespace benchledger

namespace benchledger::engine {

ParamValue parse_param_value(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc{} && end == text.data() + text.size() && !text.empty()) return value;
  }
  {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc{} && end == text.data() + text.size() && !text.empty() &&
        std::isfinite(value)) {
      return value;
    }
  }
  return text;
}

std::string NativeCase::display_name() const {
  std::string name = bench;
  for (const auto& [key, value] : params) name += " " + key + "=" + to_string(value);
  return name;
}

namespace {

int choose_int(const std::optional<int>& flag, int own, int fallback, int unset) {
  if (flag) return *flag;
  return own != unset ? own : fallback;
}

double choose_double(const std::optional<double>& flag, double own, double fallback) {
  if (flag) return *flag;
  return own > 0 ? own : fallback;
}

}  // namespace

std::vector<NativeCase> expand_cases(const Registry& registry, const std::string& prefix,
                                     const RunSettings& settings, const ParamOverrides& overrides,
                                     const std::optional<std::regex>& filter) {
  std::set<std::string> used_overrides;
  std::set<std::string> names;  // every case's, filtered out or not: a case is one identity
  std::vector<NativeCase> cases;
  for (const auto& benchmark : registry.benchmarks()) {
    auto declared = benchmark->declared_params();
    std::vector<int> levels = benchmark->concurrency_levels();
    for (const auto& [name, texts] : overrides) {
      if (name == "concurrency") {
        // Only where levels were declared: an operation not declared for concurrent use may
        // not be thread-safe.
        if (levels.empty()) continue;
        levels.clear();
        for (const std::string& text : texts) {
          const ParamValue value = parse_param_value(text);
          const auto* level = std::get_if<std::int64_t>(&value);
          if (level == nullptr || *level < 1 || *level > 4096) {
            throw Error("--param concurrency: \"" + text + "\" is not a level in 1 … 4096");
          }
          levels.push_back(static_cast<int>(*level));
        }
        used_overrides.insert(name);
        continue;
      }
      for (auto& [declared_name, values] : declared) {
        if (declared_name != name) continue;
        values.clear();
        for (const std::string& text : texts) values.push_back(parse_param_value(text));
        used_overrides.insert(name);
      }
    }
    const bool has_levels = !levels.empty();
    if (!has_levels) levels = {1};

    // Odometer over the declared params, the first slowest, then the concurrency levels.
    std::vector<std::size_t> index(declared.size(), 0);
    while (true) {
      for (int level : levels) {
        NativeCase c;
        c.benchmark = benchmark.get();
        c.bench = prefix + benchmark->name();
        for (std::size_t i = 0; i < declared.size(); ++i) {
          c.params[declared[i].first] = declared[i].second[index[i]];
        }
        c.concurrency = level;
        if (has_levels) c.params["concurrency"] = std::int64_t{level};
        c.repetitions = choose_int(settings.repetitions, benchmark->default_repetitions(),
                                   k_default_repetitions, 0);
        c.warmup = choose_int(settings.warmup, benchmark->default_warmup(), k_default_warmup, -1);
        c.min_time =
            choose_double(settings.min_time, benchmark->default_min_time(), k_default_min_time);
        c.timeout =
            choose_double(settings.timeout, benchmark->default_timeout(), k_default_case_timeout);
        c.fixed_ops = benchmark->fixed_ops();
        const bool wanted = !filter || std::regex_search(c.display_name(), *filter);
        if (const std::string& total = benchmark->total_ops_param(); !total.empty()) {
          const auto it = c.params.find(total);
          const auto* value =
              it == c.params.end() ? nullptr : std::get_if<std::int64_t>(&it->second);
          if (value == nullptr) {
            throw Error("benchmark \"" + benchmark->name() + "\": ops_per_case names param \"" +
                        total + "\", which is not an integer param of the case");
          }
          if (wanted && *value < c.repetitions) {
            throw Error("case \"" + c.display_name() + "\": " + total + "=" +
                        std::to_string(*value) + " operations in all are fewer than the " +
                        std::to_string(c.repetitions) + " repetitions");
          }
          c.total_ops = *value;
        }
        if (!names.insert(c.display_name()).second) {
          throw Error("case \"" + c.display_name() +
                      "\" is declared twice: benchmarks that share a name need params that tell "
                      "their cases apart");
        }
        if (wanted) cases.push_back(std::move(c));
      }
      std::size_t digit = declared.size();
      while (digit > 0) {
        --digit;
        if (++index[digit] < declared[digit].second.size()) break;
        index[digit] = 0;
        if (digit == 0) {
          digit = declared.size() + 1;  // wrapped around: done
          break;
        }
      }
      if (declared.empty() || digit == declared.size() + 1) break;
    }
  }
  for (const auto& [name, texts] : overrides) {
    if (used_overrides.count(name) == 0) {
      throw Error("--param " + name + ": no benchmark of this run declares a param \"" + name +
                  "\"");
    }
  }
  return cases;
}

}  // namespace benchledger::engine
