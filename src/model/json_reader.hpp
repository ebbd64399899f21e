// Reads a parsed JSON object field by field, so that every validation error names the
// field's full path: `field "metrics.time.samples[3]": expected a number`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace benchledger::model {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& object, std::string path);

  // The path of a member, for messages: "metrics.time" + "unit" -> "metrics.time.unit".
  std::string path_of(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

  bool has(const std::string& key) const;
  const nlohmann::json& member(const std::string& key) const;  // throws when absent
  JsonReader object(const std::string& key) const;

  std::string string(const std::string& key) const;
  std::optional<std::string> nullable_string(const std::string& key) const;
  double number(const std::string& key) const;
  std::optional<double> nullable_number(const std::string& key) const;
  std::optional<double> optional_number(const std::string& key) const;  // absent or number
  std::int64_t integer(const std::string& key) const;
  std::optional<std::int64_t> nullable_integer(const std::string& key) const;
  std::optional<bool> nullable_bool(const std::string& key) const;
  std::vector<std::string> strings(const std::string& key) const;
  std::vector<double> numbers(const std::string& key) const;

  const nlohmann::json& json() const { return m_object; }
  const std::string& path() const { return m_path; }

 private:
  const nlohmann::json& m_object;
  std::string m_path;
};

// nlohmann::json::parse(text), refusing a name repeated within one object (where nlohmann would
// keep the last and lose the others): throws Error `field "metrics.time.unit": appears more
// than once in its object`. nlohmann's own exceptions pass through: parse_error for malformed
// text, out_of_range for a number too large for a double. `at`, when not null, is set to the
// path of the value being read when one is thrown ("" at the top).
nlohmann::json parse_json_unique(std::string_view text, std::string* at = nullptr);

// A finite double from a JSON number, or throws Error naming the path.
double finite_number(const nlohmann::json& value, const std::string& path);

}  // namespace benchledger::model
