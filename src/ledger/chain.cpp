// Serializing, chaining and verifying records (see chain.hpp).
#include "ledger/chain.hpp"

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "env/env.hpp"
#include "ledger/canonical.hpp"
#include "ledger/record_check.hpp"

namespace benchledger::ledger {

namespace {

// Checks and serializes batch[i] into `out`. Throws Error naming the record as number
// `first + i + 1`.
void serialize_one(const std::vector<Record>& batch, std::size_t i, PendingRecord& out,
                   std::size_t first) {
  const Record& record = batch[i];
  try {
    check_record(record);
    out.bytes = serialize(record, k_zero_hash);
    if (out.bytes.size() > k_max_line_bytes) {
      throw Error(fmt::format("record is {} bytes, over the limit of {} bytes a line",
                              out.bytes.size(), k_max_line_bytes));
    }
  } catch (const Error& e) {
    throw Error(fmt::format("record {} of the batch ({} {}): {}", first + i + 1, type_name(record),
                            header_of(record).id.empty() ? "without id" : header_of(record).id,
                            e.what()));
  }
  out.prev_at = prev_offset(out.bytes);
  if (out.prev_at == std::string::npos) {
    throw Error(fmt::format("record {} of the batch: serialize() wrote non-canonical bytes",
                            first + i + 1));
  }
  out.id = header_of(record).id;
  out.type = type_name(record);
  out.index = i;
}

// The threads a batch of `size` records is serialized on: one per CPU this process may use, but
// no thread for fewer than k_records_a_thread records (starting one costs about as much as
// serializing that many).
std::size_t serializing_threads(std::size_t size) {
  constexpr std::size_t k_records_a_thread = 128;
  constexpr std::size_t k_max_threads = 8;
  const auto cpus =
      static_cast<std::size_t>(std::max<std::int64_t>(env::affinity_cpus().value_or(1), 1));
  return std::clamp<std::size_t>(std::min(cpus, size / k_records_a_thread), 1, k_max_threads);
}

}  // namespace

std::vector<PendingRecord> serialize_batch(const std::vector<Record>& batch) {
  return serialize_batch(batch, serializing_threads(batch.size()), 0);
}

std::vector<PendingRecord> serialize_chunk(const std::vector<Record>& chunk, std::size_t first) {
  return serialize_batch(chunk, serializing_threads(chunk.size()), first);
}

std::vector<PendingRecord> serialize_batch(const std::vector<Record>& batch, std::size_t threads,
                                           std::size_t first) {
  std::vector<PendingRecord> out(batch.size());
  threads = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(batch.size(), 1));
  if (threads == 1) {
    for (std::size_t i = 0; i < batch.size(); ++i) serialize_one(batch, i, out[i], first);
    return out;
  }
  // Contiguous slices, one a thread; each stops at its first bad record, so the first bad record
  // of the whole batch is the first of the slices' errors, the one reported.
  std::vector<std::exception_ptr> errors(threads);
  const auto work = [&](std::size_t slice) {
    const std::size_t begin = batch.size() * slice / threads;
    const std::size_t end = batch.size() * (slice + 1) / threads;
    try {
      for (std::size_t i = begin; i < end; ++i) serialize_one(batch, i, out[i], first);
    } catch (...) {
      errors[slice] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> helpers;
    helpers.reserve(threads - 1);
    for (std::size_t slice = 1; slice < threads; ++slice) {
      try {
        helpers.emplace_back(work, slice);
      } catch (const std::system_error&) {
        work(slice);  // no thread to be had: this one does the slice
      }
    }
    work(0);
  }  // joined here
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return out;
}

std::string chain_onto(std::vector<PendingRecord>& batch, std::string head) {
  for (auto& pending : batch) {
    pending.bytes.replace(pending.prev_at, head.size(), head);
    head = sha256_hex(pending.bytes);
  }
  return head;
}

std::string content_without_prev(std::string_view bytes) {
  std::string out(bytes);
  const std::size_t at = prev_offset(out);
  if (at != std::string::npos) {
    out.replace(at, k_zero_hash.size(), k_zero_hash);
    return out;
  }
  Record record = parse_record(bytes);
  header_of(record).prev = std::string(k_zero_hash);
  return serialize(record);
}

std::string checked_tail(const std::string& ledger, const std::string& where, std::string_view last,
                         std::optional<std::string_view> before) {
  const auto refuse = [&](const std::string& problem) {
    throw IntegrityError(fmt::format(
        "cannot append to {}: {} {} (nothing was written; run `benchledger ledger verify` to see "
        "every break: nothing can be appended until the ledger's owner repairs it)",
        ledger, where, problem));
  };
  std::string prev;
  try {
    prev = header_of(parse_record(last)).prev;
  } catch (const Error& e) {
    refuse(std::string("is not a valid record: ") + e.what());
  }
  const std::string expected = before ? sha256_hex(*before) : std::string(k_zero_hash);
  if (prev != expected) {
    refuse(
        fmt::format("does not chain onto the record before it (its prev is {}, not {}): "
                    "records were changed, removed or inserted",
                    prev, expected));
  }
  return sha256_hex(last);
}

ChainVerifier::ChainVerifier(std::string ledger, std::string unit, std::optional<std::string> head)
    : m_ledger(std::move(ledger)),
      m_unit(std::move(unit)),
      m_head(std::move(head)),
      m_last_hash(std::string(k_zero_hash)) {
  m_report.head = std::string(k_zero_hash);
  // 64 zeros is the head of the empty ledger, which every ledger begins with: a head saved
  // before the first append is still there however many records follow.
  m_head_found = m_head && *m_head == k_zero_hash;
}

void ChainVerifier::fail(std::int64_t position, std::string_view id, const std::string& problem) {
  const std::string where =
      position == 0 ? m_ledger
                    : fmt::format("{}: {} {}{}", m_ledger, m_unit, position,
                                  id.empty() ? std::string() : fmt::format(" (id {})", id));
  const std::string message = fmt::format("{}: {}", where, problem);
  if (m_report.ok) {
    m_report.ok = false;
    if (position != 0) m_report.bad_position = position;
    if (!id.empty()) m_report.bad_id = std::string(id);
    m_report.problem = message;
  }
  ++m_report.break_count;
  if (m_report.breaks.size() < VerifyReport::k_max_breaks) {
    m_report.breaks.push_back({position, std::string(id), message});
  }
}

std::optional<Record> ChainVerifier::add(std::int64_t position, std::string_view bytes) {
  const std::string hash = sha256_hex(bytes);
  std::optional<Record> record;
  std::string id, prev;
  std::string invalid;
  try {
    record = parse_record(bytes);
    id = header_of(*record).id;
    prev = header_of(*record).prev;
  } catch (const Error& e) {
    invalid = e.what();
    if (const auto peek = peek_canonical(bytes)) {
      id = std::string(peek->id);
      prev = std::string(peek->prev);
    }
  }
  std::string problem;
  if (!prev.empty() && m_last_hash && prev != *m_last_hash) {
    if (m_last_position == 0) {
      problem = fmt::format(
          "the first record's prev is {}, not 64 zeros: records before it were removed", prev);
    } else {
      problem = fmt::format(
          "prev is {} but {} {}{} hashes to {}: {} {} was changed, or records after it were "
          "removed or reordered",
          prev, m_unit, m_last_position,
          m_last_id.empty() ? std::string() : fmt::format(" (id {})", m_last_id), *m_last_hash,
          m_unit, m_last_position);
    }
  }
  if (!invalid.empty()) {
    problem += problem.empty() ? "" : "; and ";
    problem +=
        "not a valid record (a byte was changed, or it was written by something other "
        "than benchledger): " +
        invalid;
  }
  if (!problem.empty()) fail(position, id, problem);
  if (record) {  // a valid record's id is a ULID: 26 characters
    Seen seen{{}, position};
    std::copy_n(id.begin(), seen.id.size(), seen.id.begin());
    m_ids.push_back(seen);
  }
  ++m_report.records;
  m_last_hash = hash;
  m_last_position = position;
  m_last_id = id;
  m_report.head = hash;
  if (m_head && *m_head == hash) m_head_found = true;
  return record;
}

void ChainVerifier::add_unreadable(std::int64_t position, const std::string& problem) {
  fail(position, "", problem);
  ++m_report.records;
  m_last_hash.reset();  // the next record's prev cannot be checked
  m_last_position = position;
  m_last_id.clear();
}

void ChainVerifier::add_bad(std::int64_t position, std::string_view id,
                            const std::string& problem) {
  fail(position, id, problem);
}

void ChainVerifier::add_ledger_break(const std::string& problem) {
  fail(0, "", problem);
}

void ChainVerifier::start_after(std::int64_t position, std::string_view id,
                                const std::string& hash) {
  m_last_hash = hash;
  m_last_position = position;
  m_last_id = std::string(id);
  m_report.head = hash;
  m_report.since_position = position;
  m_since = position;
}

void ChainVerifier::add_earlier_id(std::int64_t position, std::string_view id) {
  if (id.size() != std::tuple_size_v<decltype(Seen::id)>) return;
  Seen seen{{}, position};
  std::copy_n(id.begin(), seen.id.size(), seen.id.begin());
  m_ids.push_back(seen);
}

VerifyReport ChainVerifier::finish() {
  // Ids are unique in a ledger; a record copied in and the chain recomputed over it (which only
  // a saved head would otherwise catch) shows here. Sorting keeps the memory at one small entry
  // a record, not a hash table of strings.
  std::stable_sort(m_ids.begin(), m_ids.end(),
                   [](const Seen& a, const Seen& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < m_ids.size(); ++i) {
    if (m_ids[i].id != m_ids[i - 1].id || m_ids[i].position <= m_since) continue;
    const std::string id(m_ids[i].id.begin(), m_ids[i].id.end());
    fail(m_ids[i].position, id,
         fmt::format("id {} is already used by {} {}: a record appears twice (copied in, with "
                     "the chain recomputed over it?)",
                     id, m_unit, m_ids[i - 1].position));
  }
  m_ids = {};
  if (m_head && !m_head_found) {
    fail(0, "",
         fmt::format("the saved head {} is not the hash of any of its {} records (head now {}): "
                     "its history was truncated or rewritten",
                     *m_head, m_report.records, m_report.head));
  }
  return m_report;
}

std::string unknown_saved_head(const std::string& saved_head, std::int64_t records) {
  return fmt::format(
      "the saved head {} is not the hash of any of its {} records: its history was truncated or "
      "rewritten, or the head is another ledger's; nothing after it could be checked (run "
      "`benchledger ledger verify` to check the whole ledger)",
      saved_head, records);
}

SinceVerifier::SinceVerifier(std::string ledger, std::string unit, std::string saved_head)
    : m_verifier(std::move(ledger), std::move(unit), std::nullopt),
      m_saved_head(std::move(saved_head)) {
  // 64 zeros, the empty ledger's head, is before the first record: everything is after it.
  if (m_saved_head == k_zero_hash) {
    m_found = true;
    m_verifier.start_after(0, "", m_saved_head);
  }
}

namespace {

// A record's header from its canonical bytes' fixed places, else parsed (a record in another
// shape, written by hand: rare); empty when it cannot be read.
Header header_in(std::string_view bytes) {
  if (const auto peek = peek_canonical(bytes)) {
    Header header;
    header.id = std::string(peek->id);
    header.prev = std::string(peek->prev);
    return header;
  }
  try {
    return header_of(parse_record(bytes));
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

void SinceVerifier::add(std::int64_t position, std::string_view bytes) {
  ++m_records;
  if (m_found) {
    m_verifier.add(position, bytes);
    return;
  }
  // Before the saved head only the `prev` is read, from its fixed place where it can be.
  const auto peek = peek_canonical(bytes);
  const bool names_head = peek ? peek->prev == m_saved_head : header_in(bytes).prev == m_saved_head;
  if (names_head && m_previous_readable && sha256_hex(m_previous) == m_saved_head) {
    take_up_after_previous();
    m_verifier.add(position, bytes);
    return;
  }
  if (peek) m_verifier.add_earlier_id(position, peek->id);
  m_previous.assign(bytes);
  m_previous_position = position;
  m_previous_readable = true;
}

void SinceVerifier::add_unreadable(std::int64_t position, const std::string& problem) {
  ++m_records;
  if (m_found) {
    m_verifier.add_unreadable(position, problem);
    return;
  }
  m_previous_readable = false;
  m_previous_position = position;
}

void SinceVerifier::take_up_after_previous() {
  m_found = true;
  m_verifier.start_after(m_previous_position, header_in(m_previous).id, m_saved_head);
  m_previous = {};
}

VerifyReport SinceVerifier::finish() {
  // The saved head is the last record: nothing was appended after it.
  if (!m_found && m_previous_readable && sha256_hex(m_previous) == m_saved_head)
    take_up_after_previous();
  if (!m_found) m_verifier.add_ledger_break(unknown_saved_head(m_saved_head, m_records));
  return m_verifier.finish();
}

}  // namespace benchledger::ledger
