// Fixed-offset reads of canonical record bytes (see canonical.hpp).
#include "ledger/canonical.hpp"

#include <cstdint>

namespace benchledger::ledger {

namespace {

constexpr std::string_view k_head = R"({"schema":"benchledger/1","type":")";
constexpr std::string_view k_id = R"(","id":")";
constexpr std::string_view k_time = R"(","time":")";
constexpr std::string_view k_prev = R"(","prev":")";
constexpr std::string_view k_run = R"(","run":")";
constexpr std::size_t k_id_size = 26;
constexpr std::size_t k_time_size = 27;
constexpr std::size_t k_hash_size = 64;

// A cursor that consumes expected literals and fixed-size fields.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : m_text(text) {}

  bool literal(std::string_view expected) {
    if (m_text.substr(m_pos, expected.size()) != expected) return false;
    m_pos += expected.size();
    return true;
  }

  // A field of exactly `size` characters. Its characters are checked by plain_up_to().
  std::optional<std::string_view> fixed(std::size_t size) {
    if (m_pos + size > m_text.size()) return std::nullopt;
    const std::string_view field = m_text.substr(m_pos, size);
    m_pos += size;
    return field;
  }

  // A JSON string without escapes, or null: the outer optional is false when neither.
  std::optional<std::optional<std::string_view>> plain_string_or_null() {
    if (literal("null")) return std::optional<std::string_view>{};
    if (!literal("\"")) return std::nullopt;
    std::size_t end = m_pos;
    while (end < m_text.size() && m_text[end] != '"' && m_text[end] != '\\') ++end;
    if (end == m_text.size() || m_text[end] != '"') return std::nullopt;
    const std::string_view value = m_text.substr(m_pos, end - m_pos);
    m_pos = end + 1;
    return std::optional<std::string_view>{value};
  }

  // Skips one JSON string, escapes included.
  bool skip_string() {
    if (!literal("\"")) return false;
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos++];
      if (c == '\\') {
        ++m_pos;
      } else if (c == '"') {
        return true;
      }
    }
    return false;
  }

  std::size_t pos() const { return m_pos; }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
};

struct Header {
  CanonicalPeek peek;
  std::size_t prev_at = 0;
  std::size_t end = 0;  // just after prev's closing quote is excluded: points at `","…`
};

// True when line[0, end) holds exactly `quotes` quotes and no backslash: then every fixed-size
// field read so far is plain text and every separator a real one. One pass the compiler
// vectorizes, instead of a check per field.
bool plain_up_to(std::string_view line, std::size_t end, int quotes) {
  // Byte counters (a header is under 256 bytes) let the loop run 16 or 32 bytes a step.
  std::uint8_t seen_quotes = 0, seen_backslashes = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(line.data());
  for (std::size_t i = 0; i < end; ++i) {
    seen_quotes = static_cast<std::uint8_t>(seen_quotes + (bytes[i] == '"'));
    seen_backslashes = static_cast<std::uint8_t>(seen_backslashes + (bytes[i] == '\\'));
  }
  return end < 256 && seen_quotes == quotes && seen_backslashes == 0;
}

// Quotes in `{"schema":"benchledger/1","type":"T","id":"I","time":"T","prev":"P"`.
constexpr int k_header_quotes = 20;

std::optional<Header> read_header(std::string_view line) {
  Cursor cursor(line);
  if (!cursor.literal(k_head)) return std::nullopt;
  Header header;
  if (cursor.literal("run")) {
    header.peek.type = RecordType::run;
  } else if (cursor.literal("result")) {
    header.peek.type = RecordType::result;
  } else if (cursor.literal("note")) {
    header.peek.type = RecordType::note;
  } else {
    return std::nullopt;
  }
  if (!cursor.literal(k_id)) return std::nullopt;
  const auto id = cursor.fixed(k_id_size);
  if (!id || !cursor.literal(k_time) || !cursor.fixed(k_time_size) || !cursor.literal(k_prev)) {
    return std::nullopt;
  }
  header.prev_at = cursor.pos();
  const auto prev = cursor.fixed(k_hash_size);
  if (!prev) return std::nullopt;
  header.peek.id = *id;
  header.peek.prev = *prev;
  header.end = cursor.pos();
  if (header.end >= line.size() || !plain_up_to(line, header.end + 1, k_header_quotes)) {
    return std::nullopt;
  }
  return header;
}

}  // namespace

std::optional<CanonicalPeek> peek_canonical(std::string_view line) {
  auto header = read_header(line);
  if (!header) return std::nullopt;
  if (header->peek.type == RecordType::result) {
    Cursor cursor(line.substr(header->end));
    if (!cursor.literal(k_run)) return std::nullopt;
    const auto run = cursor.fixed(k_id_size);
    if (!run || !cursor.literal("\"")) return std::nullopt;
    // The run id: plain text between the two quotes just checked.
    for (const char c : *run) {
      if (c == '"' || c == '\\') return std::nullopt;
    }
    header->peek.run = *run;
  } else if (line.substr(header->end, 2) != "\",") {
    return std::nullopt;
  }
  return header->peek;
}

std::optional<RunPeek> peek_run(std::string_view line) {
  const auto header = read_header(line);
  if (!header || header->peek.type != RecordType::run) return std::nullopt;
  Cursor cursor(line.substr(header->end));
  RunPeek out;
  if (!cursor.literal(R"(","label":)")) return std::nullopt;
  const auto label = cursor.plain_string_or_null();
  if (!label) return std::nullopt;
  out.label = *label;
  if (!cursor.literal(R"(,"project":)") || !cursor.skip_string() ||
      !cursor.literal(R"(,"git":{"commit":)")) {
    return std::nullopt;
  }
  const auto commit = cursor.plain_string_or_null();
  if (!commit) return std::nullopt;
  out.commit = *commit;
  return out;
}

std::size_t prev_offset(std::string_view line) {
  const auto header = read_header(line);
  return header ? header->prev_at : std::string_view::npos;
}

}  // namespace benchledger::ledger
