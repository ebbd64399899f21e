// The shared parts of the JSON importers.
#include "import/json_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

#include <benchledger/error.hpp>

#include "model/canonical_writer.hpp"
#include "model/json_reader.hpp"

namespace benchledger::import::detail {

void fail(const std::string& origin, const std::string& field, const std::string& problem) {
  if (field.empty()) throw Error(origin + ": the document: " + problem);
  throw Error(origin + ": field \"" + field + "\": " + problem);
}

std::string non_finite_as_null(std::string_view text) {
  static constexpr std::string_view k_tokens[] = {"-Infinity", "Infinity", "-NaN", "NaN",
                                                  "-nan",      "nan",      "-inf", "inf"};
  const auto delimiter = [](char c) {
    return c == ',' || c == '}' || c == ']' || c == ':' || c == '[' || c == ' ' || c == '\n' ||
           c == '\r' || c == '\t';
  };
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if ((c == '-' || c == 'N' || c == 'I' || c == 'n' || c == 'i') &&
        (i == 0 || delimiter(text[i - 1]))) {
      const auto token = std::find_if(std::begin(k_tokens), std::end(k_tokens), [&](auto t) {
        return text.substr(i, t.size()) == t &&
               (i + t.size() == text.size() || delimiter(text[i + t.size()]));
      });
      if (token != std::end(k_tokens)) {
        out += "null";
        i += token->size() - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

json parse_json(std::string_view text, const std::string& origin) {
  try {
    return model::parse_bounded_json(text, model::RepeatedNames::keep_last);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is 1-based and one past the text when it ran out: a killed writer's file.
    const bool at_end = e.byte >= text.size();
    throw Error(origin + ": not JSON: " + e.what() +
                (at_end ? ": " + std::string(k_cut_short) : std::string()));
  } catch (const json::exception& e) {
    throw Error(origin + ": not JSON: " + e.what());
  } catch (const Error& e) {  // too deep, or a number out of range: `field "PATH": …`
    throw Error(origin + ": " + e.what());
  }
}

void cut_short(ImportedResults& imported, Partial partial, const std::string& origin,
               const std::string& ending, const std::vector<std::string>& dropped) {
  const std::size_t kept = imported.results.size();
  std::string left_out;
  for (std::size_t i = 0; i < dropped.size(); ++i)
    left_out += (i == 0 ? "" : i + 1 == dropped.size() ? " and " : ", ") + dropped[i];
  const std::string benchmarks =
      std::to_string(kept) + (kept == 1 ? " complete benchmark" : " complete benchmarks");
  const std::string what = origin + ": " + ending + ": " + std::string(k_cut_short);
  if (kept == 0) throw Error(what + ", and no benchmark in it is complete (nothing was imported)");
  if (partial == Partial::refuse)
    throw Error(what + " (nothing was imported; --allow-partial imports its " + benchmarks +
                (left_out.empty() ? "" : " and leaves out " + left_out) + ")");
  imported.warnings.push_back(what + "; --allow-partial imported its " + benchmarks +
                              (left_out.empty() ? "" : " and left out " + left_out));
}

std::string ordinal(std::size_t n) {
  const std::size_t tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : ones == 1                ? "st"
                       : ones == 2                ? "nd"
                       : ones == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

const json& member(const json& object, const std::string& key, const std::string& path,
                   const std::string& origin) {
  if (!object.is_object()) fail(origin, path, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) fail(origin, path.empty() ? key : path + "." + key, "missing");
  return *it;
}

double number(const json& value, const std::string& path, const std::string& origin) {
  if (!value.is_number()) fail(origin, path, "expected a number");
  const double x = value.get<double>();
  if (!std::isfinite(x)) fail(origin, path, "expected a finite number");
  return x;
}

std::int64_t count(const json& value, const std::string& path, const std::string& origin) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
    fail(origin, path, "expected a non-negative integer");
  return value.get<std::int64_t>();
}

void add_count(std::int64_t& total, std::int64_t more, const std::string& path,
               const std::string& origin) {
  if (__builtin_add_overflow(total, more, &total))
    fail(origin, path, "the counts add up to more than 2^63");
}

void multiply_count(std::int64_t& total, std::int64_t factor, const std::string& path,
                    const std::string& origin) {
  if (__builtin_mul_overflow(total, factor, &total))
    fail(origin, path, "the counts multiply to more than 2^63");
}

std::int64_t positive_count(const json& value, const std::string& path, const std::string& origin) {
  const double n = number(value, path, origin);
  if (!(n >= 1 && n < 9007199254740992.0) || n != std::floor(n))
    fail(origin, path, "expected a whole count from 1 to 2^53");
  return static_cast<std::int64_t>(n);
}

std::string text(const json& value, const std::string& path, const std::string& origin) {
  if (!value.is_string()) fail(origin, path, "expected a string");
  return value.get<std::string>();
}

std::string text_or(const json& entry, const std::string& key, const std::string& absent,
                    const std::string& path, const std::string& origin) {
  const auto it = entry.find(key);
  return it == entry.end() ? absent : text(*it, path + "." + key, origin);
}

bool flag(const json& entry, const std::string& key, const std::string& path,
          const std::string& origin) {
  const auto it = entry.find(key);
  if (it == entry.end()) return false;
  if (!it->is_boolean()) fail(origin, path + "." + key, "expected true or false");
  return it->get<bool>();
}

std::optional<std::string> optional_text(const json& object, const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string() || it->get<std::string>().empty()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<double> optional_number(const json& object, const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>()))
    return std::nullopt;
  return it->get<double>();
}

std::optional<std::int64_t> optional_integer(const json& object, const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

void require_utf8(std::string_view text, const std::string& origin) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte == '\n') {
        line_start = i + 1;
        ++line;
      }
      ++i;
      continue;
    }
    const std::size_t length = model::utf8_sequence(text, i);
    if (length == 0) {
      static constexpr char k_hex[] = "0123456789ABCDEF";
      throw Error(origin + ":" + std::to_string(line) + ": not UTF-8 (byte 0x" + k_hex[byte >> 4] +
                  k_hex[byte & 0xF] + " at column " + std::to_string(i - line_start + 1) + ")");
    }
    i += length;
  }
}

ResultRecord new_result(std::string bench, Params params) {
  ResultRecord r;
  r.header.id = new_ulid();
  r.header.time = now_rfc3339();
  r.header.prev = std::string(k_zero_hash);
  r.bench = std::move(bench);
  r.params = std::move(params);
  return r;
}

ResultRecord failed_result(std::string bench, const std::string& message, std::int64_t ops,
                           std::int64_t errors) {
  ResultRecord r = new_result(std::move(bench));
  r.metrics["failed"] = single_value_metric("count", Better::lower, 1);
  r.primary = "failed";
  r.ops = ops;
  r.errors = errors;
  r.header.extra["failure"] = {{"kind", "error"}, {"message", message}};
  return r;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Milliseconds since the epoch as RFC 3339 UTC.
std::string rfc3339_of_milliseconds(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(ms % 1000));
  return std::string(text) + millis;
}

ParamValue json_param(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) return value.get<double>();
  return value.dump();  // a list, an object or null: its JSON text
}

ParamValue param_value(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  std::int64_t integer = 0;
  if (auto [end, ec] = std::from_chars(first, last, integer); ec == std::errc() && end == last)
    return integer;
  double real = 0;
  if (auto [end, ec] = std::from_chars(first, last, real);
      ec == std::errc() && end == last && std::isfinite(real))
    return real;
  return text;
}

}  // namespace benchledger::import::detail
