// The NDJSON store (see ndjson_store.hpp): reading, and the batch an append or import writes; the
// lock, the marker and repairs are locked_append.hpp's.
#include "ledger/ndjson/ndjson_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "ledger/canonical.hpp"
#include "ledger/chain.hpp"
#include "ledger/import_plan.hpp"
#include "ledger/ledger_file.hpp"
#include "ledger/ndjson/line_reader.hpp"
#include "ledger/ndjson/locked_append.hpp"

namespace benchledger::ledger::ndjson {

NdjsonStore::NdjsonStore(std::string uri, std::filesystem::path path)
    : m_uri(std::move(uri)), m_path(std::move(path)) {}

namespace {

// The lines of one append or import, written through a LockedAppend.
class NdjsonBatch final : public ChainedStore::Batch {
 public:
  NdjsonBatch(LockedAppend& append, std::string name) : m_append(append), m_name(std::move(name)) {}

  void find_present(ImportPlan& plan) override {
    const Fd reader_fd(::open(m_append.file().c_str(), O_RDONLY | O_CLOEXEC));
    if (reader_fd.get() < 0)
      throw Error(fmt::format("cannot read {}: {}", m_name, errno_text(errno)));
    LineReader reader(reader_fd.get(), m_name, m_append.size());
    LineReader::Line line;
    while (reader.next(line)) {
      if (line.too_long) continue;
      std::string id;
      if (const auto peek = peek_canonical(line.bytes)) {
        id = std::string(peek->id);
      } else {
        try {
          id = header_of(parse_record(line.bytes)).id;
        } catch (const Error&) {
          continue;  // verify reports a bad line; it cannot hold an id being imported
        }
      }
      if (plan.wants(id)) plan.present(id, line.bytes, m_name, fmt::format("line {}", line.number));
    }
  }

  void begin_writes(std::int64_t bytes, const std::string& head) override {
    m_append.begin(bytes, head);
  }

  // One write() a call: an append's batch stays contiguous.
  void write(std::vector<PendingRecord>& pending, const std::vector<Record>&) override {
    std::size_t total = 0;
    for (const auto& record : pending) total += record.bytes.size() + 1;
    m_bytes.clear();
    m_bytes.reserve(total);
    for (const auto& record : pending) {
      m_bytes += record.bytes;
      m_bytes += '\n';
    }
    m_append.write(m_bytes);
  }

 private:
  LockedAppend& m_append;
  std::string m_name;
  std::string m_bytes;
};

}  // namespace

std::string NdjsonStore::write_batch(
    const BatchOutline&, const std::function<std::string(Batch& batch, std::string head)>& body) {
  m_warnings.clear();
  LockedAppend append(m_path, m_warnings);
  NdjsonBatch batch(append, m_path.string());
  try {
    std::string head = body(batch, append.head());
    if (append.started()) append.commit(head);
    return head;
  } catch (const Error& e) {
    if (!append.started()) throw;  // nothing was written: a refused import, say
    throw append.undo(e.what());
  }
}

bool NdjsonStore::read_lines(const std::function<bool(const LineVisit&)>& visit) const {
  const std::string name = m_path.string();
  m_warnings.clear();
  // Resolved as appends resolve it, so that a reader sees the marker of a writer that came
  // through another name. O_NONBLOCK: a FIFO put there since must not block the open.
  const std::filesystem::path file = ledger_file(m_path);
  const Fd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      m_warnings.push_back(fmt::format("{} does not exist yet: read as an empty ledger", name));
      return false;
    }
    throw Error(fmt::format("cannot open {}: {}", name, errno_text(errno)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw Error(fmt::format("cannot stat {}: {}", name, errno_text(errno)));
  check_ledger_kind(m_path, file, st.st_mode);
  std::int64_t limit = st.st_size;
  // The marker is read after the size: a batch started since is beyond `limit` anyway.
  if (const auto marker = read_marker(file);
      marker && marker->valid && marker->dev == static_cast<std::uint64_t>(st.st_dev) &&
      marker->ino == static_cast<std::uint64_t>(st.st_ino) && marker->offset < limit &&
      !marker_settled(fd.get(), *marker, limit, name)) {
    m_warnings.push_back(fmt::format(
        "{}: an append is in progress or was interrupted: the {} bytes after byte {} are not read",
        name, limit - marker->offset, marker->offset));
    limit = marker->offset;
  }
  LineReader reader(fd.get(), name, limit);
  LineReader::Line line;
  while (reader.next(line)) {
    if (!visit({line.number, line.offset, line.length, line.bytes, line.too_long})) return true;
  }
  if (reader.tail_bytes() > 0) {
    m_warnings.push_back(fmt::format(
        "{}: ignored {} bytes after the last complete line (line {}): a torn tail of an "
        "interrupted append; the next append moves it aside",
        name, reader.tail_bytes(), reader.lines()));
  }
  return true;
}

Record NdjsonStore::parse_line(const LineVisit& line) const {
  if (line.too_long) {
    throw IntegrityError(fmt::format("{} line {}: record is over the limit of {} bytes a line",
                                     m_path.string(), line.number, k_max_line_bytes));
  }
  return parse_stored(line.bytes, m_path.string(), "line", line.number);
}

void NdjsonStore::scan(const std::function<bool(const StoredRecord&)>& visit) const {
  read_lines([&](const LineVisit& line) {
    StoredRecord stored{line.number, std::string(line.bytes), parse_line(line)};
    return visit(stored);
  });
}

void NdjsonStore::scan_bytes(
    const std::function<bool(std::int64_t position, std::string_view bytes)>& visit) const {
  read_lines([&](const LineVisit& line) {
    if (line.too_long) parse_line(line);  // throws
    return visit(line.number, line.bytes);
  });
}

namespace {

bool matches(const RunSelector& selector, std::string_view id,
             const std::optional<std::string_view>& label,
             const std::optional<std::string_view>& commit) {
  switch (selector.kind) {
    case RunSelector::Kind::id:
      return id == selector.value;
    case RunSelector::Kind::label:
      return label && *label == selector.value;
    case RunSelector::Kind::git:
      return commit && commit->substr(0, selector.value.size()) == selector.value;
    case RunSelector::Kind::latest:
      return true;
  }
  return false;
}

std::size_t saturating_add(std::size_t a, std::size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

}  // namespace

std::vector<std::pair<std::int64_t, std::string>> NdjsonStore::run_lines(
    const RunSelector& selector, std::size_t limit) const {
  std::deque<std::pair<std::int64_t, std::string>> newest;  // the last back + limit matches
  const std::size_t keep = saturating_add(static_cast<std::size_t>(selector.back), limit);
  if (keep == 0) return {};
  read_lines([&](const LineVisit& line) {
    bool match = false;
    const auto peek = line.too_long ? std::nullopt : peek_canonical(line.bytes);
    if (peek && peek->type != RecordType::run) return true;
    if (peek && selector.kind == RunSelector::Kind::id) {
      match = peek->id == selector.value;
    } else if (peek && selector.kind == RunSelector::Kind::latest) {
      match = true;
    } else if (const auto run = peek ? peek_run(line.bytes) : std::nullopt) {
      match = matches(selector, peek->id, run->label, run->commit);
    } else {
      const Record record = parse_line(line);
      const auto* run_record = std::get_if<RunRecord>(&record);
      if (run_record == nullptr) return true;
      const auto& label = run_record->label;
      const auto& commit = run_record->git.commit;
      match = matches(selector, run_record->header.id,
                      label ? std::optional<std::string_view>(*label) : std::nullopt,
                      commit ? std::optional<std::string_view>(*commit) : std::nullopt);
    }
    if (!match) return true;
    newest.emplace_back(line.number, std::string(line.bytes));
    if (newest.size() > keep) newest.pop_front();
    return selector.kind != RunSelector::Kind::id;  // ids are unique: stop at the first
  });
  std::vector<std::pair<std::int64_t, std::string>> out(newest.rbegin(), newest.rend());
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min(
                                           out.size(), static_cast<std::size_t>(selector.back))));
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::vector<RunRecord> NdjsonStore::find_runs(const RunSelector& selector,
                                              std::size_t limit) const {
  std::vector<RunRecord> out;
  for (auto& [number, bytes] : run_lines(selector, limit)) {
    Record record = parse_line({number, 0, 0, bytes, false});
    out.push_back(std::get<RunRecord>(std::move(record)));
  }
  return out;
}

void NdjsonStore::scan_results(const std::string& run_id,
                               const std::function<bool(ResultRecord&& result)>& visit) const {
  scan_results_taking(
      run_id, [](std::string_view) { return false; }, visit);
}

bool NdjsonStore::scan_results_taking(
    const std::string& run_id, const std::function<bool(std::string_view bytes)>& take,
    const std::function<bool(ResultRecord&& result)>& visit) const {
  read_lines([&](const LineVisit& line) {
    const auto peek = line.too_long ? std::nullopt : peek_canonical(line.bytes);
    if (peek && (peek->type != RecordType::result || peek->run != run_id)) return true;
    if (peek && take(line.bytes)) return true;
    Record record = parse_line(line);
    if (auto* result = std::get_if<ResultRecord>(&record); result && result->run == run_id) {
      return visit(std::move(*result));
    }
    return true;
  });
  return true;
}

std::vector<NoteRecord> NdjsonStore::notes() const {
  std::vector<NoteRecord> out;
  read_lines([&](const LineVisit& line) {
    const auto peek = line.too_long ? std::nullopt : peek_canonical(line.bytes);
    if (peek && peek->type != RecordType::note) return true;
    Record record = parse_line(line);
    if (auto* note = std::get_if<NoteRecord>(&record)) out.push_back(std::move(*note));
    return true;
  });
  return out;
}

std::optional<StoredRecord> NdjsonStore::find_record(const std::string& id) const {
  std::optional<StoredRecord> found;
  read_lines([&](const LineVisit& line) {
    const auto peek = line.too_long ? std::nullopt : peek_canonical(line.bytes);
    if (peek && peek->id != id) return true;
    Record record = parse_line(line);
    if (header_of(record).id != id) return true;
    found = StoredRecord{line.number, std::string(line.bytes), std::move(record)};
    return false;
  });
  return found;
}

std::vector<RunListing> NdjsonStore::log(std::size_t limit) const {
  std::deque<std::pair<std::int64_t, std::string>> runs;
  std::unordered_map<std::string, std::int64_t> counts;
  read_lines([&](const LineVisit& line) {
    const auto peek = line.too_long ? std::nullopt : peek_canonical(line.bytes);
    if (peek && peek->type == RecordType::result) {
      ++counts[std::string(peek->run)];
      return true;
    }
    if (peek && peek->type == RecordType::note) return true;
    if (!peek) {
      const Record record = parse_line(line);
      if (const auto* result = std::get_if<ResultRecord>(&record)) ++counts[result->run];
      if (!std::holds_alternative<RunRecord>(record)) return true;
    }
    runs.emplace_back(line.number, std::string(line.bytes));
    if (limit != 0 && runs.size() > limit) runs.pop_front();
    return true;
  });
  std::vector<RunListing> out;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    RunListing listing;
    listing.run = std::get<RunRecord>(parse_line({it->first, 0, 0, it->second, false}));
    const auto count = counts.find(listing.run.header.id);
    listing.results = count == counts.end() ? 0 : count->second;
    out.push_back(std::move(listing));
  }
  return out;
}

namespace {

// Reads every line of the file at `path` through `read_lines` into `verifier` (a ChainVerifier,
// or a SinceVerifier), going on past a bad line: nothing after it may go unchecked. Throws Error
// when the file does not exist.
template <class ReadLines, class Verifier>
VerifyReport verified(const ReadLines& read_lines, Verifier& verifier, const std::string& path,
                      const std::vector<std::string>& warnings) {
  const bool exists = read_lines([&](const auto& line) {
    if (line.too_long) {
      verifier.add_unreadable(line.number,
                              fmt::format("record is {} bytes, over the limit of {} bytes a line",
                                          line.length, k_max_line_bytes));
    } else {
      verifier.add(line.number, line.bytes);
    }
    return true;
  });
  if (!exists) throw Error(fmt::format("cannot verify {}: it does not exist", path));
  for (const auto& warning : warnings) verifier.warn(warning);
  return verifier.finish();
}

}  // namespace

VerifyReport NdjsonStore::verify(const std::optional<std::string>& head) const {
  ChainVerifier verifier(m_path.string(), "line", head);
  return verified([&](const auto& visit) { return read_lines(visit); }, verifier, m_path.string(),
                  m_warnings);
}

VerifyReport NdjsonStore::verify_since(const std::string& saved_head) const {
  // A file has no index to start from: it is read from its first line, but only the records
  // after the saved head are parsed and hashed (SinceVerifier).
  SinceVerifier verifier(m_path.string(), "line", saved_head);
  return verified([&](const auto& visit) { return read_lines(visit); }, verifier, m_path.string(),
                  m_warnings);
}

}  // namespace benchledger::ledger::ndjson
