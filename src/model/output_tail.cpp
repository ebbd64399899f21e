#include "model/output_tail.hpp"

#include <deque>
#include <fstream>

#include "model/canonical_writer.hpp"
#include "model/redact.hpp"

namespace benchledger::model {
namespace {

// Valid UTF-8 without control characters other than tab.
std::string printable(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    const auto byte = static_cast<unsigned char>(line[i]);
    if (byte < 0x80) {
      if (byte >= 0x20 && byte != 0x7f) {
        out += line[i];
      } else if (byte == '\t') {
        out += '\t';
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence(line, i);
    if (length == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(line.substr(i, length));
      i += length;
    }
  }
  return out;
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

std::string output_tail(std::string_view text, std::size_t max_lines, std::size_t max_bytes) {
  // Blank lines at the end would take the places of the last lines that say something.
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  text = last == std::string_view::npos ? std::string_view() : text.substr(0, last + 1);
  if (text.size() > max_bytes) {
    text.remove_prefix(text.size() - max_bytes);
    // A line cut at its start would read as a line of its own.
    const std::size_t line_break = text.find('\n');
    if (line_break != std::string_view::npos && line_break + 1 < text.size()) {
      text.remove_prefix(line_break + 1);
    }
  }
  std::deque<std::string> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(begin, end - begin);
    if (raw.ends_with('\r')) raw.remove_suffix(1);
    // A terminal shows what follows a line's last carriage return over what came before.
    if (const std::size_t overwritten = raw.rfind('\r'); overwritten != std::string_view::npos) {
      raw.remove_prefix(overwritten + 1);
    }
    std::string line = printable(redact_secrets(raw));
    if (!(blank(line) && lines.empty())) lines.push_back(std::move(line));
    if (lines.size() > max_lines) lines.pop_front();
    begin = end + 1;
  }
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  // The lines kept may start with blank ones the window cut into.
  while (!lines.empty() && blank(lines.front())) lines.pop_front();
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

std::string file_tail(const std::filesystem::path& path, std::size_t max_lines,
                      std::string_view separator) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  // Twice what output_tail keeps, so that it can start at a line.
  const std::streamoff wanted = std::min<std::streamoff>(size, 2 * k_tail_bytes);
  std::string text(static_cast<std::size_t>(wanted), '\0');
  in.seekg(size - wanted);
  in.read(text.data(), wanted);
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string tail = output_tail(text, max_lines);
  if (separator == "\n") return tail;
  std::string joined;
  for (std::size_t at = 0; at <= tail.size() && !tail.empty();) {
    std::size_t end = tail.find('\n', at);
    if (end == std::string::npos) end = tail.size();
    joined += (joined.empty() ? "" : std::string(separator)) + tail.substr(at, end - at);
    at = end + 1;
  }
  return joined;
}

}  // namespace benchledger::model
