// The writer of canonical JSON (docs/records.md): record_json.cpp lays records out with it.
// Header-only but for its cold paths (canonical_writer.cpp), so that the calls of the hot ones
// inline where records are written.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger::model {

// The length of the well-formed UTF-8 sequence starting at text[i], or 0 when it is not one
// (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i);

// Throws Error naming the field (`path`) of a NaN or infinity anywhere in `json`.
void refuse_non_finite(const nlohmann::json& json, const std::string& path);

// Where a value sits in a record, for error messages: "metrics." + "time" + ".samples" + "[3]".
// Kept as pieces, joined only when something is wrong, so the happy path builds no strings.
struct FieldPath {
  std::string_view head, name, tail, leaf;
  std::int64_t index = -1;

  std::string str() const {
    std::string path = fmt::format("{}{}{}{}", head, name, tail, leaf);
    if (index >= 0) path += "[" + std::to_string(index) + "]";
    return path;
  }
};

// Appends canonical JSON to one string. Serializing is most of what appending to an NDJSON
// ledger costs (docs/ledger.md, "Performance"), so bytes go straight into the string's storage:
// room() makes space once per token, and a string's plain ASCII is scanned and copied eight
// bytes at a time. finish() trims the string to what was written.
//
// With an indent, the same tokens in the layout of nlohmann's dump(indent), for the JSON outputs
// people read (compare's): each member and element on a line of its own, indented by its depth
// (counted from `depth`, for a value written inside a larger document), `"key": value`, and an
// empty object or array as `{}` or `[]`.
class CanonicalWriter {
 public:
  explicit CanonicalWriter(std::string& out, int indent = 0, int depth = 0)
      : m_out(out), m_size(out.size()), m_indent(indent), m_outer(depth), m_depth(depth) {
    m_out.resize(m_out.capacity());  // what was reserved is room already
  }

  // Call once, when done: the string then holds exactly the bytes written.
  void finish() { m_out.resize(m_size); }

  // Opens an object or array, and separates members.
  void open(char bracket) {
    separate();
    put(bracket);
    m_first = true;
    ++m_depth;
  }
  void close(char bracket) {
    --m_depth;
    if (m_indent > 0 && !m_first) new_line();
    put(bracket);
    m_first = false;
  }
  // `"name":` for a name known to need no escaping.
  void key(std::string_view name) {
    separate();
    char* at = room(name.size() + 4);
    at[0] = '"';
    std::memcpy(at + 1, name.data(), name.size());
    at[name.size() + 1] = '"';
    at[name.size() + 2] = ':';
    at[name.size() + 3] = ' ';
    m_size += name.size() + (m_indent > 0 ? 4 : 3);
    m_after_key = true;  // the value that follows takes no comma
  }
  // `"name":` for a name from the record (a param or metric name).
  void key(std::string_view name, const FieldPath& field) {
    separate();
    string_body(name, field);
    put(m_indent > 0 ? std::string_view(": ") : std::string_view(":"));
    m_after_key = true;
  }

  void string(std::string_view text, const FieldPath& field) {
    separate();
    string_body(text, field);
  }
  void null() {
    separate();
    put("null");
  }
  void boolean(bool value) {
    separate();
    put(value ? "true" : "false");
  }
  void integer(std::int64_t value) {
    separate();
    char* at = room(20);
    m_size += static_cast<std::size_t>(std::to_chars(at, at + 20, value).ptr - at);
  }
  void number(double value, const FieldPath& field) {
    if (!std::isfinite(value)) {
      throw Error("field \"" + field.str() +
                  "\": NaN or infinity cannot be written (JSON has no such number)");
    }
    separate();
    // A record repeats many of its numbers (the median is the value and p50, min and max are
    // samples): the text of the last few is kept, a lookup against Grisu2's 50 ns or so.
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    Printed& memo = m_printed[(bits ^ (bits >> 29) ^ (bits >> 47)) % k_printed];
    if (memo.length == 0 || memo.bits != bits) {
      const char* end = nlohmann::detail::to_chars(memo.text, memo.text + sizeof memo.text, value);
      memo.bits = bits;
      memo.length = static_cast<std::uint8_t>(end - memo.text);
    }
    std::memcpy(room(sizeof memo.text), memo.text, sizeof memo.text);  // a fixed size: no call
    m_size += memo.length;
  }
  // A value that is not part of the schema (an unknown field kept verbatim).
  void json(const nlohmann::json& value, const FieldPath& where) {
    const std::string field = where.str();
    refuse_non_finite(value, field);
    separate();
    try {
      put(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict));
    } catch (const nlohmann::json::type_error& e) {
      throw Error("field \"" + field + "\": a string is not valid UTF-8 (" + e.what() + ")");
    }
  }

  template <class T>
  void optional(const std::optional<T>& value, const FieldPath& field) {
    if (!value) {
      null();
    } else if constexpr (std::is_same_v<T, std::string>) {
      string(*value, field);
    } else if constexpr (std::is_same_v<T, bool>) {
      boolean(*value);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      integer(*value);
    } else {
      number(*value, field);
    }
  }

 private:
  // Space for `bytes` more bytes at the end of what was written; returns where they go.
  char* room(std::size_t bytes) {
    if (m_out.size() - m_size < bytes) [[unlikely]]
      grow(bytes);
    return m_out.data() + m_size;
  }
  [[gnu::noinline]] void grow(std::size_t bytes) {
    m_out.resize(std::max(2 * m_out.size(), m_size + bytes));
  }
  void put(char c) {
    *room(1) = c;
    ++m_size;
  }
  void put(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    m_size += text.size();
  }

  void separate() {
    if (m_after_key) {
      m_after_key = false;
      return;
    }
    if (!m_first) put(',');
    m_first = false;
    if (m_indent > 0 && m_depth > m_outer) new_line();  // a member or element
  }
  [[gnu::noinline]] void new_line() {
    const auto spaces = static_cast<std::size_t>(m_indent * m_depth);
    char* at = room(spaces + 1);
    at[0] = '\n';
    std::memset(at + 1, ' ', spaces);
    m_size += spaces + 1;
  }

  // True when none of the eight bytes of `word` needs a look: no control character, no quote
  // or backslash, nothing from 0x80 up (which must be checked as UTF-8).
  static bool plain8(std::uint64_t word) {
    constexpr std::uint64_t k_ones = 0x0101010101010101u;
    constexpr std::uint64_t k_highs = 0x8080808080808080u;
    const auto has_zero = [](std::uint64_t x) { return (x - k_ones) & ~x & k_highs; };
    const std::uint64_t below_space = (word - k_ones * 0x20) & ~word & k_highs;
    return ((below_space | has_zero(word ^ (k_ones * '"')) | has_zero(word ^ (k_ones * '\\')) |
             word) &
            k_highs) == 0;
  }

  // As nlohmann's dump() escapes with ensure_ascii off: the two-character escapes it knows,
  // \u00xx (lower-case hex) for the other control characters, everything else verbatim.
  void string_body(std::string_view text, const FieldPath& field) {
    static constexpr char k_hex[] = "0123456789abcdef";
    // Room for the text copied as it is and its quotes; only an escape, up to six bytes for
    // one, can need more, so each makes sure of room for itself and the rest.
    char* out = room(text.size() + 2);
    const char* limit = m_out.data() + m_out.size();
    *out++ = '"';
    for (std::size_t i = 0; i < text.size();) {
      if (i + 8 <= text.size()) {
        std::uint64_t word;
        std::memcpy(&word, text.data() + i, 8);
        if (plain8(word)) {
          std::memcpy(out, &word, 8);
          out += 8;
          i += 8;
          continue;
        }
      }
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
        *out++ = static_cast<char>(c);
        ++i;
        continue;
      }
      if (c >= 0x80) {
        const std::size_t length = utf8_sequence(text, i);
        if (length == 0) throw Error(fmt_utf8_error(field, i, c));
        std::memcpy(out, text.data() + i, length);
        out += length;
        i += length;
        continue;
      }
      if (const std::size_t need = text.size() - i + 6;
          static_cast<std::size_t>(limit - out) < need) {
        m_size = static_cast<std::size_t>(out - m_out.data());
        out = room(need);
        limit = m_out.data() + m_out.size();
      }
      *out++ = '\\';
      switch (c) {
        case '"':
          *out++ = '"';
          break;
        case '\\':
          *out++ = '\\';
          break;
        case '\b':
          *out++ = 'b';
          break;
        case '\f':
          *out++ = 'f';
          break;
        case '\n':
          *out++ = 'n';
          break;
        case '\r':
          *out++ = 'r';
          break;
        case '\t':
          *out++ = 't';
          break;
        default:
          std::memcpy(out, "u00", 3);
          out[3] = k_hex[c >> 4];
          out[4] = k_hex[c & 0xF];
          out += 5;
      }
      ++i;
    }
    *out++ = '"';
    m_size = static_cast<std::size_t>(out - m_out.data());
  }

  // The error for a byte at `at` of a string that is not UTF-8.
  static std::string fmt_utf8_error(const FieldPath& field, std::size_t at, unsigned byte);

  // A number's canonical text, as nlohmann's Grisu2 printed it (at most 25 characters).
  struct Printed {
    std::uint64_t bits = 0;   // the double's bits
    std::uint8_t length = 0;  // 0: empty
    char text[31];
  };
  static constexpr std::size_t k_printed = 16;

  std::string& m_out;
  std::size_t m_size;  // bytes written; m_out may be longer (room not yet used)
  int m_indent;
  int m_outer;  // the depth of the value written: its own first line is the caller's
  int m_depth;
  bool m_first = true;
  bool m_after_key = false;
  std::array<Printed, k_printed> m_printed{};
};

// `{"name": value, ...}` of a case's params, in key order (docs/records.md).
void write_params(CanonicalWriter& w, const Params& params);

}  // namespace benchledger::model
