// Reading callgrind's output format (https://valgrind.org/docs/manual/cl-format.html) into a
// per-function profile (profile.hpp).
#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "profile/profile.hpp"

namespace benchledger::profile {

namespace {

constexpr double k_ll_hit_cycles = 5;
constexpr double k_memory_cycles = 35;

// The events a cost line may carry, in CacheEvents' order.
constexpr std::array<std::string_view, 9> k_events = {"Ir",   "Dr",   "Dw",   "I1mr", "D1mr",
                                                      "D1mw", "ILmr", "DLmr", "DLmw"};
using EventSums = std::array<double, k_events.size()>;

struct FunctionKey {
  std::string name, file;  // file empty when unknown
  bool operator<(const FunctionKey& other) const {
    return std::tie(name, file) < std::tie(other.name, other.file);
  }
};

struct FunctionSums {
  EventSums sums{};
  std::optional<std::int64_t> line;
  // The inclusive instructions of its calls, by callee.
  std::map<FunctionKey, double> calls;
};

CacheEvents to_events(const EventSums& s) {
  return CacheEvents{s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]};
}

// One file's reading: its compressed names (`fn=(12) name` defines 12, `fn=(12)` uses it; files
// are one table for fl, fi, fe, cfi and cfl, functions one for fn and cfn).
class CallgrindReader {
 public:
  CallgrindReader(const std::filesystem::path& path, std::map<FunctionKey, FunctionSums>& into)
      : m_path(path.string()), m_into(into) {}

  void read() {
    std::ifstream in(m_path);
    if (!in) throw Error("cannot read callgrind's output " + m_path + ": " + std::strerror(errno));
    for (std::string line; std::getline(in, line);) {
      ++m_line_number;
      read_line(line);
    }
    if (in.bad()) throw Error("cannot read callgrind's output " + m_path + ": read error");
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(fmt::format("callgrind's output {} line {}: {}", m_path, m_line_number, reason));
  }

  static bool starts(std::string_view line, std::string_view prefix) {
    return line.substr(0, prefix.size()) == prefix;
  }

  // `(id) name`, `(id)` or `name`.
  std::string name_in(std::map<std::int64_t, std::string>& table, std::string_view text) {
    if (text.empty() || text.front() != '(') return std::string(text);
    const auto close = text.find(')');
    if (close == std::string_view::npos)
      fail("\"" + std::string(text) + "\" is not a compressed name");
    std::int64_t id = 0;
    const auto [at, error] = std::from_chars(text.data() + 1, text.data() + close, id);
    if (error != std::errc() || at != text.data() + close)
      fail("\"" + std::string(text) + "\" is not a compressed name");
    std::string_view rest = text.substr(close + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (!rest.empty()) return table[id] = std::string(rest);
    const auto found = table.find(id);
    if (found == table.end()) fail(fmt::format("name ({}) is used before it is defined", id));
    return found->second;
  }

  void read_line(const std::string& line) {
    if (line.empty() || line.front() == '#') return;
    const char first = line.front();
    if ((first >= '0' && first <= '9') || first == '+' || first == '-' || first == '*') {
      read_cost(line);
    } else if (starts(line, "fn=")) {
      // Looked up once here, not on each of its cost lines: std::map keeps the address.
      m_sums = &m_into[function_name(name_in(m_functions, std::string_view(line).substr(3)))];
      m_cost_file = m_function_file;
    } else if (starts(line, "fl=")) {
      m_function_file = file_name(name_in(m_files, std::string_view(line).substr(3)));
      m_cost_file = m_function_file;
    } else if (starts(line, "fi=") || starts(line, "fe=")) {
      m_cost_file = file_name(name_in(m_files, std::string_view(line).substr(3)));
    } else if (starts(line, "cfn=")) {
      // The callee's file is the caller's unless a cfi= or cfl= line named another.
      m_callee = function_name(name_in(m_functions, std::string_view(line).substr(4)),
                               m_callee_file.value_or(m_function_file));
      m_callee_file.reset();
    } else if (starts(line, "cfi=") || starts(line, "cfl=")) {
      m_callee_file = file_name(name_in(m_files, std::string_view(line).substr(4)));
    } else if (starts(line, "ob=")) {
      std::ignore = name_in(m_objects, std::string_view(line).substr(3));
    } else if (starts(line, "cob=")) {
      std::ignore = name_in(m_objects, std::string_view(line).substr(4));
    } else if (starts(line, "calls=") || starts(line, "jump=") || starts(line, "jcnd=")) {
      // The next cost line is the call's inclusive cost (or a jump's source), not self cost.
      m_next_is_call = true;
      m_next_call_counts = starts(line, "calls=");
    } else if (starts(line, "events:")) {
      read_events(std::string_view(line).substr(7));
    } else if (starts(line, "positions:")) {
      m_positions = 0;
      for (const std::string_view word : words(std::string_view(line).substr(10))) {
        std::ignore = word;
        ++m_positions;
      }
      if (m_positions == 0) fail("\"positions:\" names no position");
    }
    // Any other line is a header (version, creator, pid, cmd, part, desc, summary, totals).
  }

  static std::vector<std::string_view> words(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (at < text.size()) {
      const auto start = text.find_first_not_of(" \t", at);
      if (start == std::string_view::npos) break;
      const auto end = std::min(text.find_first_of(" \t", start), text.size());
      out.push_back(text.substr(start, end - start));
      at = end;
    }
    return out;
  }

  void read_events(std::string_view text) {
    m_columns.clear();
    for (const std::string_view word : words(text)) {
      const auto found = std::find(k_events.begin(), k_events.end(), word);
      m_columns.push_back(found == k_events.end() ? -1
                                                  : static_cast<int>(found - k_events.begin()));
    }
    for (std::size_t e = 0; e < k_events.size(); ++e) {
      if (std::find(m_columns.begin(), m_columns.end(), static_cast<int>(e)) == m_columns.end())
        fail(fmt::format("no event {} (callgrind runs with --cache-sim=yes)", k_events[e]));
    }
  }

  void read_cost(std::string_view line) {
    const std::vector<std::string_view> parts = words(line);
    if (m_columns.empty()) fail("a cost line before the \"events:\" line");
    if (parts.size() < m_positions) fail("a cost line without its position");
    // The first position is the line (positions: line, or instr line with the line second).
    const std::size_t line_column = m_positions == 1 ? 0 : 1;
    for (std::size_t p = 0; p < m_positions; ++p) {
      std::int64_t& last = m_last_position[std::min<std::size_t>(p, 1)];
      const std::string_view word = parts[p];
      if (word == "*") continue;
      std::int64_t value = 0;
      const bool relative = word.front() == '+' || word.front() == '-';
      const std::string_view digits = word.substr(word.front() == '+' ? 1 : 0);
      const int base = digits.starts_with("0x") ? 16 : 10;
      const std::string_view number = base == 16 ? digits.substr(2) : digits;
      const auto [at, error] =
          std::from_chars(number.data(), number.data() + number.size(), value, base);
      if (error != std::errc() || at != number.data() + number.size())
        fail("\"" + std::string(word) + "\" is not a position");
      last = relative ? last + value : value;
    }
    if (m_sums == nullptr) fail("a cost line before any \"fn=\" line");
    if (m_next_is_call) {
      m_next_is_call = false;
      if (m_next_call_counts && m_callee) {
        const auto ir = std::find(m_columns.begin(), m_columns.end(), 0);
        const std::size_t at = m_positions + static_cast<std::size_t>(ir - m_columns.begin());
        if (at < parts.size()) m_sums->calls[*m_callee] += count_in(parts[at]);
      }
      return;
    }
    FunctionSums& sums = *m_sums;
    for (std::size_t i = m_positions; i < parts.size(); ++i) {
      const std::size_t column = i - m_positions;
      if (column >= m_columns.size()) fail("more costs than events");
      const double cost = count_in(parts[i]);
      if (m_columns[column] >= 0) sums.sums[m_columns[column]] += cost;
    }
    const std::int64_t source_line = m_last_position[std::min<std::size_t>(line_column, 1)];
    if (source_line > 0 && m_cost_file == m_function_file && !m_function_file.empty())
      sums.line = sums.line ? std::min(*sums.line, source_line) : source_line;
  }

  double count_in(std::string_view word) const {
    std::uint64_t cost = 0;
    const auto [at, error] = std::from_chars(word.data(), word.data() + word.size(), cost);
    if (error != std::errc() || at != word.data() + word.size())
      fail("\"" + std::string(word) + "\" is not a count");
    return static_cast<double>(cost);
  }

  FunctionKey function_name(const std::string& name) const {
    return function_name(name, m_function_file);
  }

  // `fib(long)'2`: callgrind's name for a recursion level (--separate-recs); one function.
  static FunctionKey function_name(const std::string& name, const std::string& file) {
    std::string plain = name;
    const auto quote = plain.rfind('\'');
    if (quote != std::string::npos && quote + 1 < plain.size() &&
        plain.find_first_not_of("0123456789", quote + 1) == std::string::npos)
      plain.resize(quote);
    return FunctionKey{demangle(plain), file};
  }

  static std::string file_name(const std::string& name) { return name == "???" ? "" : name; }

  std::string m_path;
  std::map<FunctionKey, FunctionSums>& m_into;
  std::int64_t m_line_number = 0;
  std::map<std::int64_t, std::string> m_functions, m_files, m_objects;
  std::vector<int> m_columns;  // each cost column's index in k_events, -1 for another event
  std::size_t m_positions = 1;
  std::array<std::int64_t, 2> m_last_position{};
  FunctionSums* m_sums = nullptr;  // the current function's, in m_into
  std::string m_function_file, m_cost_file;
  bool m_next_is_call = false;
  bool m_next_call_counts = false;           // the next cost line is a call's (not a jump's)
  std::optional<FunctionKey> m_callee;       // of the last cfn= line
  std::optional<std::string> m_callee_file;  // of a cfi= or cfl= line before a cfn= line
};

// The k_call_graph_functions functions of most inclusive instructions and the calls among them.
CallGraph call_graph_of(const std::map<FunctionKey, FunctionSums>& sums, double per) {
  struct Ranked {
    const FunctionKey* key;
    const FunctionSums* function;
    double inclusive;
  };
  std::vector<Ranked> ranked;
  for (const auto& [key, function] : sums) {
    double inclusive = function.sums[0];
    for (const auto& [callee, instructions] : function.calls) {
      if (callee.name != key.name || callee.file != key.file) inclusive += instructions;
    }
    if (inclusive > 0) ranked.push_back({&key, &function, inclusive});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.inclusive != b.inclusive) return a.inclusive > b.inclusive;
    return std::tie(a.key->name, a.key->file) < std::tie(b.key->name, b.key->file);
  });
  if (ranked.size() > k_call_graph_functions) ranked.resize(k_call_graph_functions);
  CallGraph graph;
  std::map<FunctionKey, std::size_t> index;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    graph.functions.push_back({ranked[i].key->name, ranked[i].inclusive / per});
    index.emplace(*ranked[i].key, i);
  }
  for (std::size_t caller = 0; caller < ranked.size(); ++caller) {
    std::map<std::optional<std::size_t>, double> to;
    for (const auto& [callee_key, instructions] : ranked[caller].function->calls) {
      const auto callee = index.find(callee_key);
      if (callee != index.end() && callee->second == caller) continue;  // a recursion
      if (callee == index.end() && callee_key.name == ranked[caller].key->name &&
          callee_key.file == ranked[caller].key->file)
        continue;
      to[callee == index.end() ? std::nullopt : std::optional(callee->second)] += instructions;
    }
    for (const auto& [callee, instructions] : to)
      graph.calls.push_back({caller, callee, instructions / per});
  }
  return graph;
}

}  // namespace

double estimated_cycles(const CacheEvents& t) {
  const double accesses = t.ir + t.dr + t.dw;
  const double l1_misses = t.i1mr + t.d1mr + t.d1mw;
  const double ll_misses = t.ilmr + t.dlmr + t.dlmw;
  return (accesses - l1_misses) + k_ll_hit_cycles * (l1_misses - ll_misses) +
         k_memory_cycles * ll_misses;
}

std::string demangle(std::string_view symbol) {
  if (!symbol.starts_with("_Z")) return std::string(symbol);
  int status = 0;
  const std::string mangled(symbol);
  const std::unique_ptr<char, decltype(&std::free)> plain(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && plain ? std::string(plain.get()) : mangled;
}

Profile read_callgrind_profile(const std::vector<std::filesystem::path>& files, std::int64_t ops,
                               std::size_t kept) {
  std::map<FunctionKey, FunctionSums> sums;
  for (const auto& file : files) CallgrindReader(file, sums).read();
  const double per = ops > 0 ? static_cast<double>(ops) : 1.0;
  Profile profile;
  profile.processes = static_cast<std::int64_t>(files.size());
  std::vector<FunctionCost> functions;
  functions.reserve(sums.size());
  for (const auto& [key, function] : sums) {
    const CacheEvents events = to_events(function.sums);
    if (events.ir == 0) continue;  // a function only called through, charged nothing itself
    FunctionCost cost;
    cost.name = key.name;
    if (!key.file.empty()) cost.file = key.file;
    cost.line = function.line;
    cost.self = Cost{events.ir / per, estimated_cycles(events) / per};
    functions.push_back(std::move(cost));
  }
  // Costliest first; ties by name and file, so that the same profile gives the same bytes.
  std::sort(functions.begin(), functions.end(), [](const FunctionCost& a, const FunctionCost& b) {
    if (a.self.instructions != b.self.instructions)
      return a.self.instructions > b.self.instructions;
    return std::tie(a.name, a.file) < std::tie(b.name, b.file);
  });
  for (std::size_t i = 0; i < functions.size(); ++i) {
    profile.total.instructions += functions[i].self.instructions;
    profile.total.estimated_cycles += functions[i].self.estimated_cycles;
    if (i < kept) continue;
    profile.other.instructions += functions[i].self.instructions;
    profile.other.estimated_cycles += functions[i].self.estimated_cycles;
    ++profile.other_functions;
  }
  if (functions.size() > kept) functions.resize(kept);
  profile.functions = std::move(functions);
  profile.call_graph = call_graph_of(sums, per);
  return profile;
}

}  // namespace benchledger::profile
