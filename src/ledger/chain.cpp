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

ChainVerifier::ChainVerifier(std::string ledger, std::string unit, std::optional<std::string> head)
    : m_ledger(std::move(ledger)),
      m_unit(std::move(unit)),
      m_head(std::move(head)),
      m_last_hash(k_zero_hash) {
  m_report.head = std::string(k_zero_hash);
  // 64 zeros is the head of the empty ledger, which every ledger begins with: a head saved
  // before the first append is still there however many records follow.
  m_head_found = m_head && *m_head == k_zero_hash;
}

void ChainVerifier::fail(std::int64_t position, std::string_view id, const std::string& problem) {
  m_report.ok = false;
  m_report.bad_position = position;
  if (!id.empty()) m_report.bad_id = std::string(id);
  m_report.problem = fmt::format("{}: {} {}{}: {}", m_ledger, m_unit, position,
                                 id.empty() ? std::string() : fmt::format(" (id {})", id), problem);
}

bool ChainVerifier::add(std::int64_t position, std::string_view bytes) {
  if (!m_report.ok) return false;
  const std::string hash = sha256_hex(bytes);
  std::string id, prev;
  std::string invalid;
  try {
    const Record record = parse_record(bytes);
    id = header_of(record).id;
    prev = header_of(record).prev;
  } catch (const Error& e) {
    invalid = e.what();
    if (const auto peek = peek_canonical(bytes)) {
      id = std::string(peek->id);
      prev = std::string(peek->prev);
    }
  }
  if (!prev.empty() && prev != m_last_hash) {
    std::string problem;
    if (m_last_position == 0) {
      problem = fmt::format(
          "the first record's prev is {}, not 64 zeros: records before it were removed", prev);
    } else {
      problem = fmt::format(
          "prev is {} but {} {} (id {}) hashes to {}: {} {} was changed, or records after it "
          "were removed or reordered",
          prev, m_unit, m_last_position, m_last_id, m_last_hash, m_unit, m_last_position);
    }
    if (!invalid.empty()) problem += "; the record itself is not valid: " + invalid;
    fail(position, id, problem);
    return false;
  }
  if (!invalid.empty()) {
    fail(position, id, "not a valid record (a byte was changed?): " + invalid);
    return false;
  }
  ++m_report.records;
  m_last_hash = hash;
  m_last_position = position;
  m_last_id = id;
  m_report.head = hash;
  if (m_head && *m_head == hash) m_head_found = true;
  return true;
}

void ChainVerifier::add_bad(std::int64_t position, std::string_view id,
                            const std::string& problem) {
  if (!m_report.ok) return;
  fail(position, id, problem);
}

VerifyReport ChainVerifier::finish() {
  if (m_report.ok && m_head && !m_head_found) {
    m_report.ok = false;
    m_report.problem = fmt::format(
        "{}: the saved head {} is not the hash of any of its {} records (head now {}): its "
        "history was truncated or rewritten",
        m_ledger, *m_head, m_report.records, m_report.head);
  }
  return m_report;
}

}  // namespace benchledger::ledger
