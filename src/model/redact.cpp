// Credentials out of recorded and printed text (see redact.hpp for the rule).
#include "model/redact.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace benchledger::model {

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// The secrets of the URI in text[start, end), where `start` is just past its "://".
void uri_spans(std::string_view text, std::size_t start, std::size_t end, Spans& spans) {
  const std::string_view uri = text.substr(0, end);
  std::size_t at = start;
  while (at < end && uri[at] != '@' && uri[at] != '/') ++at;
  if (at == end || uri[at] != '@') {
    // Not a user part libpq would read, but a password with a '/' in it (base64) is still a
    // password: an '@' before the parameters ends the user part all the same. Hiding a little
    // too much of a name shown in messages is harmless.
    const std::size_t query = std::min(uri.find('?', start), end);
    at = query == start ? std::string_view::npos : uri.rfind('@', query - 1);
    if (at == std::string_view::npos || at < start) at = end;
  }
  std::size_t rest = start;
  if (at < end) {
    const std::size_t colon = uri.find(':', start);
    if (colon < at) spans.emplace_back(colon + 1, at);
    rest = at + 1;
  }
  for (std::size_t key = uri.find('?', rest); key != std::string_view::npos && key < end;) {
    ++key;
    const std::size_t stop = std::min({uri.find('&', key), uri.find('#', key), end});
    const std::size_t equals = uri.find('=', key);
    if (equals < stop && is_secret_name(percent_decoded(uri.substr(key, equals - key)))) {
      spans.emplace_back(equals + 1, stop);
    }
    key = stop < end && uri[stop] == '&' ? stop : std::string_view::npos;
  }
}

}  // namespace

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool is_secret_name(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* part : {"password", "passwd", "secret", "credential", "apikey"}) {
    if (lower.find(part) != std::string::npos) return true;
  }
  std::vector<std::string_view> words;
  std::string_view rest = lower;
  while (!rest.empty()) {
    const std::size_t stop = std::min(rest.find_first_of("_-."), rest.size());
    if (stop > 0) words.push_back(rest.substr(0, stop));
    rest.remove_prefix(std::min(stop + 1, rest.size()));
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "token" || words[i] == "pass" || words[i] == "pwd") return true;
    if (i + 1 < words.size() && words[i + 1] == "key" &&
        (words[i] == "api" || words[i] == "access" || words[i] == "private")) {
      return true;
    }
  }
  return false;
}

std::vector<std::pair<std::size_t, std::size_t>> secret_spans(std::string_view text) {
  Spans spans;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && is_space(text[at])) ++at;
    std::size_t token_end = at;
    while (token_end < text.size() && !is_space(text[token_end])) ++token_end;
    if (at == token_end) break;
    // NAME=VALUE, after any quotes or parentheses that open the word in shell text.
    std::size_t name = at;
    while (name < token_end && (text[name] == '"' || text[name] == '\'' || text[name] == '(')) {
      ++name;
    }
    std::size_t equals = name;
    while (equals < token_end && is_name_char(text[equals])) ++equals;
    if (equals > name && equals < token_end && text[equals] == '=' &&
        is_secret_name(text.substr(name, equals - name))) {
      const std::size_t value = equals + 1;
      std::size_t value_end = token_end;
      if (value < text.size() && (text[value] == '\'' || text[value] == '"')) {
        // A quoted value (libpq's keyword strings, the shell) may hold spaces.
        const char quote = text[value];
        value_end = value + 1;
        while (value_end < text.size() && text[value_end] != quote) {
          value_end += text[value_end] == '\\' ? 2 : 1;
        }
        value_end = std::min(value_end + 1, text.size());
        while (value_end < text.size() && !is_space(text[value_end])) ++value_end;
      }
      spans.emplace_back(value, value_end);
      at = value_end;
      continue;
    }
    if (const std::size_t scheme = text.find("://", at); scheme < token_end) {
      uri_spans(text, scheme + 3, token_end, spans);
    }
    at = token_end;
  }
  return spans;
}

std::string redact_secrets(std::string_view text) {
  std::string out(text);
  const Spans spans = secret_spans(text);
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    out.replace(it->first, it->second - it->first, "***");
  }
  return out;
}

std::vector<std::string> redact_command(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool value_is_secret = false;
  for (const std::string& arg : argv) {
    if (value_is_secret) {
      out.emplace_back("***");
      value_is_secret = false;
      continue;
    }
    out.push_back(redact_secrets(arg));
    value_is_secret = arg.size() > 1 && arg.front() == '-' && arg != "--" &&
                      std::all_of(arg.begin(), arg.end(), is_name_char) && is_secret_name(arg);
  }
  return out;
}

}  // namespace benchledger::model
