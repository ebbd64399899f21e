// Run selectors: `01J…`, `baseline`, `baseline~2`, `git:abc123`, `latest`, `latest~1`.
#include <cctype>
#include <charconv>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>

namespace benchledger::ledger {

namespace {

[[noreturn]] void refuse(std::string_view text, const std::string& reason) {
  throw Error("run selector \"" + std::string(text) + "\": " + reason);
}

bool is_label(std::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

}  // namespace

RunSelector parse_run_selector(std::string_view text) {
  RunSelector selector;
  selector.text = std::string(text);
  if (text.empty()) refuse(text, "empty");

  if (text.rfind("git:", 0) == 0) {
    const std::string_view commit = text.substr(4);
    if (commit.size() < 4 || commit.size() > 64) {
      refuse(text, "expected 4 to 64 hex digits of a commit after git:");
    }
    selector.kind = RunSelector::Kind::git;
    for (char c : commit) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) {
        refuse(text, "expected hex digits of a commit after git:");
      }
      selector.value += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return selector;
  }

  std::string_view name = text;
  if (const auto tilde = text.find('~'); tilde != std::string_view::npos) {
    name = text.substr(0, tilde);
    const std::string_view count = text.substr(tilde + 1);
    std::int64_t back = -1;
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), back);
    if (count.empty() || ec != std::errc() || end != count.data() + count.size() || back < 0) {
      refuse(text, "expected a number of runs back after '~', like latest~1");
    }
    selector.back = back;
  }

  if (name == "latest") {
    selector.kind = RunSelector::Kind::latest;
    return selector;
  }
  if (is_ulid(name)) {
    if (selector.back != 0) refuse(text, "a run id names one run: '~N' does not apply");
    selector.kind = RunSelector::Kind::id;
    selector.value = std::string(name);
    return selector;
  }
  if (!is_label(name)) {
    refuse(text,
           "expected a run id, a label ([A-Za-z0-9._-]{1,64}, optionally ~N), git:COMMIT or "
           "latest~N");
  }
  selector.kind = RunSelector::Kind::label;
  selector.value = std::string(name);
  return selector;
}

std::vector<RunRecord> clean_runs_only(const RunSelector& selector, std::vector<RunRecord> runs) {
  if (selector.kind != RunSelector::Kind::git || runs.empty()) return runs;
  std::vector<std::string> dirty;
  for (const RunRecord& run : runs) {
    if (run.git.dirty.value_or(false)) dirty.push_back(run.header.id);
  }
  if (dirty.size() == runs.size()) {
    std::string ids;
    for (const std::string& id : dirty) ids += (ids.empty() ? "" : ", ") + id;
    refuse(selector.text,
           "only runs made from uncommitted changes (+dirty) match: " + ids +
               "; a commit selects clean runs only (give a run id to select one of these)");
  }
  std::erase_if(runs, [](const RunRecord& run) { return run.git.dirty.value_or(false); });
  return runs;
}

}  // namespace benchledger::ledger
