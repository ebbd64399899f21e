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

// What parse_bounded_json() does with a name repeated within one object.
enum class RepeatedNames {
  refuse,     // a record, the config file: nlohmann would keep the last and lose the others
  keep_last,  // a harness's output, as nlohmann reads it
};

// nlohmann::json::parse(text) within the limits every reader of outside JSON applies, checked
// while parsing, so that nothing beyond them is ever built (a value nested 300,000 deep would
// overflow the stack when copied, written or freed). Each throws Error naming the path of the
// value where the parser was, `(document)` at the top:
// - arrays and objects nested deeper than k_max_nesting: `field "a[0][0][0][0]…": nested deeper
//   than 512 levels of arrays and objects`;
// - a number no double holds (1e400, -1e400, a 400-digit integer): `field "metrics.time.value":
//   the number 1e400 is out of the range of a double (about ±1.8e308)`;
// - with RepeatedNames::refuse, a name repeated within an object: `field "metrics.time.unit":
//   appears more than once in its object`.
// Malformed text throws nlohmann's parse_error, whose message names the byte.
nlohmann::json parse_bounded_json(std::string_view text, RepeatedNames names);

// A finite double from a JSON number, or throws Error naming the path.
double finite_number(const nlohmann::json& value, const std::string& path);

}  // namespace benchledger::model
