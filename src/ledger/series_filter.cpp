// Matching of cases and runs for every store's scan_series.
#include "ledger/series_filter.hpp"

#include <fnmatch.h>

#include <algorithm>

#include <benchledger/error.hpp>

#include "ledger/columns.hpp"
#include "model/json_reader.hpp"

namespace benchledger::ledger {
namespace {

bool digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool is_date(std::string_view text) {
  return text.size() == 10 && digits(text.substr(0, 4)) && text[4] == '-' &&
         digits(text.substr(5, 2)) && text[7] == '-' && digits(text.substr(8, 2));
}

}  // namespace

std::optional<std::string> normalized_since(const std::optional<std::string>& since) {
  if (!since) return std::nullopt;
  const std::string& text = *since;
  if (is_date(text)) return text;
  // dddd-dd-ddTdd:dd:dd, then an optional fraction of 1 to 6 digits, then Z.
  const auto bad = [&] {
    return Error("--since " + text +
                 ": expected a date (2026-11-01) or an RFC 3339 UTC time (2026-11-01T10:00:00Z)");
  };
  if (text.size() < 20 || !is_date(std::string_view(text).substr(0, 10)) || text[10] != 'T' ||
      !digits(std::string_view(text).substr(11, 2)) || text[13] != ':' ||
      !digits(std::string_view(text).substr(14, 2)) || text[16] != ':' ||
      !digits(std::string_view(text).substr(17, 2)) || text.back() != 'Z') {
    throw bad();
  }
  std::string fraction;
  if (text.size() > 20) {
    if (text[19] != '.') throw bad();
    fraction = text.substr(20, text.size() - 21);
    if (fraction.empty() || fraction.size() > 6 || !digits(fraction)) throw bad();
  }
  fraction.resize(6, '0');
  return text.substr(0, 19) + "." + fraction + "Z";
}

bool case_matches(const std::vector<std::string>& globs, const std::string& bench,
                  const Params& params) {
  if (globs.empty()) return true;
  std::optional<std::string> key;  // built once, only when a glob needs it
  for (const std::string& glob : globs) {
    if (::fnmatch(glob.c_str(), bench.c_str(), 0) == 0) return true;
    if (!key) key = case_key(bench, params);
    if (::fnmatch(glob.c_str(), key->c_str(), 0) == 0) return true;
  }
  return false;
}

bool run_matches(const SeriesQuery& query, const RunRecord& run) {
  if (query.label && run.label != query.label) return false;
  if (query.branch && run.git.branch != query.branch) return false;
  return !query.since || run.header.time >= *query.since;
}

std::optional<std::vector<std::pair<std::string, std::string>>> bench_ranges(
    const std::vector<std::string>& globs) {
  if (globs.empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& glob : globs) {
    // The bench column holds the bench name alone, while a glob may name a case key
    // (`sort/uniform{"n":2000}`): the prefix ends at the first wildcard or at the `{` where a
    // case key's params begin, so that it is a prefix of the bench either way.
    const std::size_t wild = std::min(glob.find_first_of("*?[\\"), glob.find('{'));
    std::string prefix = glob.substr(0, wild);
    if (prefix.empty()) return std::nullopt;
    // Every string that starts with `prefix` sorts below it with its last byte raised; a last
    // byte of 0xff is dropped first (bytes compare unsigned in SQLite and PostgreSQL's C order).
    std::string high = prefix;
    while (!high.empty() && static_cast<unsigned char>(high.back()) == 0xff) high.pop_back();
    if (high.empty()) return std::nullopt;
    high.back() = static_cast<char>(static_cast<unsigned char>(high.back()) + 1);
    out.emplace_back(std::move(prefix), std::move(high));
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> exact_cases(
    const std::vector<std::string>& globs) {
  if (globs.empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& glob : globs) {
    if (glob.find_first_of("*?[\\") != std::string::npos) return std::nullopt;
    // A bench name may hold `{` too: the case key's params are the JSON object after the `{` whose
    // case key, written again, is the glob.
    bool found = false;
    for (std::size_t at = glob.find('{'); at != std::string::npos && !found;
         at = glob.find('{', at + 1)) {
      if (at == 0) continue;
      try {
        const nlohmann::json json =
            model::parse_bounded_json(glob.substr(at), model::RepeatedNames::refuse);
        if (!json.is_object()) continue;
        const Params params = params_from_json(json);
        const std::string bench = glob.substr(0, at);
        if (case_key(bench, params) != glob) continue;
        out.emplace_back(bench, params_text(params));
        found = true;
      } catch (const std::exception&) {
        // Not a case's params (not JSON, or not params): another `{` may start them.
      }
    }
    if (!found) return std::nullopt;
  }
  return out;
}

}  // namespace benchledger::ledger
