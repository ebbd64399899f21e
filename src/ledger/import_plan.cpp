// The two passes of an import (see import_plan.hpp).
#include "ledger/import_plan.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include <benchledger/error.hpp>

namespace benchledger::ledger {

namespace {

std::array<unsigned char, 32> digest_of(std::string_view bytes) {
  const std::string hex = sha256_hex(bytes);
  std::array<unsigned char, 32> out{};
  const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<unsigned char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
  return out;
}

std::string_view id_of(const std::array<char, 26>& id) {
  return {id.data(), id.size()};
}

// Reads a source a chunk at a time: `flush` gets each chunk of at most k_chunk records and the
// place of its first record.
void each_chunk(const ImportSource& source,
                const std::function<void(std::vector<Record>&, std::size_t first)>& flush) {
  std::vector<Record> chunk;
  chunk.reserve(ImportPlan::k_chunk);
  std::size_t first = 0;
  source.each([&](Record&& record, std::size_t index) {
    if (chunk.empty()) first = index;
    chunk.push_back(std::move(record));
    if (chunk.size() == ImportPlan::k_chunk) {
      flush(chunk, first);
      chunk.clear();
    }
  });
  if (!chunk.empty()) flush(chunk, first);
}

}  // namespace

void RecordsSource::each(
    const std::function<void(Record&& record, std::size_t index)>& visit) const {
  for (std::size_t i = 0; i < m_records.size(); ++i) {
    Record copy = m_records[i];
    visit(std::move(copy), i);
  }
}

void ImportPlan::serialize_chunk(std::vector<Record>& records, std::size_t first,
                                 const std::function<void(PendingRecord&, std::size_t)>& visit) {
  std::vector<PendingRecord> pending = ledger::serialize_chunk(records, first);
  for (PendingRecord& record : pending) visit(record, first + record.index);
}

ImportPlan::ImportPlan(const ImportSource& source) {
  each_chunk(source, [&](std::vector<Record>& records, std::size_t first) {
    serialize_chunk(records, first, [&](PendingRecord& record, std::size_t index) {
      if (index != m_entries.size() || index >= std::numeric_limits<std::uint32_t>::max()) {
        throw Error(fmt::format("record {}: an import holds at most {} records", index + 1,
                                std::numeric_limits<std::uint32_t>::max() - 1));
      }
      Entry entry;
      std::memcpy(entry.id.data(), record.id.data(), entry.id.size());  // a checked ULID
      entry.content = digest_of(record.bytes);
      entry.length = static_cast<std::uint32_t>(record.bytes.size());
      m_entries.push_back(entry);
    });
  });

  // Each id once, at its first record; a later record with that id is the same record (skipped)
  // or a conflict. The conflict reported is the first in the source, as a reader would meet it.
  std::vector<std::uint32_t> order(m_entries.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return m_entries[a].id < m_entries[b].id;
  });
  std::size_t conflict = m_entries.size();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Entry& entry = m_entries[order[k]];
    if (m_by_id.empty() || m_entries[m_by_id.back()].id != entry.id) {
      m_by_id.push_back(order[k]);
      continue;
    }
    if (m_entries[m_by_id.back()].content != entry.content) {
      conflict = std::min<std::size_t>(conflict, order[k]);
    }
    m_entries[order[k]].skip = true;
  }
  if (conflict < m_entries.size()) {
    throw ConflictError(fmt::format("field \"id\": {} appears twice with different content",
                                    id_of(m_entries[conflict].id)),
                        conflict);
  }
  for (const Entry& entry : m_entries) {
    if (entry.skip) continue;
    ++m_kept;
    m_kept_bytes += static_cast<std::int64_t>(entry.length) + 1;
  }
}

bool ImportPlan::wants(std::string_view id) const {
  if (id.size() != 26) return false;
  const auto it = std::lower_bound(
      m_by_id.begin(), m_by_id.end(), id,
      [&](std::uint32_t i, std::string_view key) { return id_of(m_entries[i].id) < key; });
  return it != m_by_id.end() && id_of(m_entries[*it].id) == id;
}

void ImportPlan::present(std::string_view id, std::string_view bytes, const std::string& ledger,
                         const std::string& position) {
  if (id.size() != 26) return;
  const auto it = std::lower_bound(
      m_by_id.begin(), m_by_id.end(), id,
      [&](std::uint32_t i, std::string_view key) { return id_of(m_entries[i].id) < key; });
  if (it == m_by_id.end() || id_of(m_entries[*it].id) != id) return;
  Entry& first = m_entries[*it];
  if (digest_of(content_without_prev(bytes)) != first.content) {
    throw ConflictError(fmt::format("field \"id\": {} is already in {} ({}) with other content; "
                                    "records are never changed, add a note instead",
                                    id, ledger, position),
                        *it);
  }
  if (first.skip) return;  // the ledger holds it twice: verify reports that
  first.skip = true;
  --m_kept;
  m_kept_bytes -= static_cast<std::int64_t>(first.length) + 1;
}

std::vector<std::string> ImportPlan::ids(std::size_t from, std::size_t count) const {
  std::vector<std::string> out;
  for (std::size_t k = from; k < std::min(m_by_id.size(), from + count); ++k) {
    out.emplace_back(id_of(m_entries[m_by_id[k]].id));
  }
  return out;
}

std::string ImportPlan::append_chunks(
    const ImportSource& source, std::string head,
    const std::function<void(std::vector<PendingRecord>& pending,
                             const std::vector<Record>& records)>& write) const {
  std::size_t seen = 0;
  const auto changed = [](std::size_t index) {
    return Error(
        fmt::format("record {}: the records to import changed while they were imported (a file was "
                    "written to?)",
                    index + 1));
  };
  each_chunk(source, [&](std::vector<Record>& records, std::size_t first) {
    std::vector<PendingRecord> pending = ledger::serialize_chunk(records, first);
    std::vector<PendingRecord> kept;
    kept.reserve(pending.size());
    for (PendingRecord& record : pending) {
      const std::size_t index = first + record.index;
      if (index >= m_entries.size()) throw changed(index);
      const Entry& entry = m_entries[index];
      if (record.bytes.size() != entry.length || id_of(entry.id) != record.id ||
          digest_of(record.bytes) != entry.content) {
        throw changed(index);
      }
      if (!entry.skip) kept.push_back(std::move(record));
    }
    seen = first + pending.size();
    if (kept.empty()) return;
    head = chain_onto(kept, head);
    write(kept, records);
  });
  if (seen != m_entries.size()) throw changed(seen);
  return head;
}

}  // namespace benchledger::ledger
