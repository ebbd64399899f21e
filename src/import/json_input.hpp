// What every importer of a JSON document shares: reading it, the typed look-ups that name the
// JSON path of what is wrong, and the records an import makes. Each throws Error as
// `ORIGIN: field "PATH": PROBLEM` (or `ORIGIN: the document: PROBLEM`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <benchledger/record.hpp>

#include "import/import.hpp"

namespace benchledger::import::detail {

using nlohmann::json;

[[noreturn]] void fail(const std::string& origin, const std::string& field,
                       const std::string& problem);

// The whole text as JSON; a syntax error throws naming the byte where it was found (and, when the
// parser met the end of the text, that the output looks cut short), nesting deeper than
// k_max_nesting and a number out of the range of a double naming the field
// (model::parse_bounded_json).
json parse_json(std::string_view text, const std::string& origin);

// The text with the non-finite numbers some writers put in JSON, which JSON has no word for,
// as null: NaN, -NaN, Infinity, -Infinity and the stream's nan, -nan, inf, -inf, outside strings
// and between a value's delimiters (google-benchmark writes NaN for the coefficient of variation
// of a counter whose mean is 0). For a reader that takes such a number as absent.
std::string non_finite_as_null(std::string_view text);

// The words every importer ends a cut-short file's message with.
inline constexpr std::string_view k_cut_short = "the output looks cut short";

// A file that ends before its tool's closing, once `imported.results` holds only its complete
// benchmarks. `ending` says where it ends and what is missing (`ends after BenchmarkSum's 4th
// sample, without go test's closing "ok" or "FAIL" line`), `dropped` names each benchmark left
// out. With Partial::refuse, or when no benchmark is complete, throws Error
// `ORIGIN: ENDING: the output looks cut short ...`; else adds the warning that says what
// --allow-partial kept and left out.
void cut_short(ImportedResults& imported, Partial partial, const std::string& origin,
               const std::string& ending, const std::vector<std::string>& dropped);

// 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st.
std::string ordinal(std::size_t n);

// object[key]; throws when object is not an object or has no such key.
const json& member(const json& object, const std::string& key, const std::string& path,
                   const std::string& origin);
// A finite number.
double number(const json& value, const std::string& path, const std::string& origin);
// A non-negative integer.
std::int64_t count(const json& value, const std::string& path, const std::string& origin);
// total += more, refused naming `path` when the sum does not fit a count.
void add_count(std::int64_t& total, std::int64_t more, const std::string& path,
               const std::string& origin);
// total *= factor, refused naming `path` when the product does not fit a count.
void multiply_count(std::int64_t& total, std::int64_t factor, const std::string& path,
                    const std::string& origin);
// A positive whole count written as a number (criterion writes `1.0`), below 2^53 so that it
// converts exactly.
std::int64_t positive_count(const json& value, const std::string& path, const std::string& origin);
std::string text(const json& value, const std::string& path, const std::string& origin);
// An optional string member of an entry, or `absent` when it is not there.
std::string text_or(const json& entry, const std::string& key, const std::string& absent,
                    const std::string& path, const std::string& origin);
// An optional boolean member of an entry, false when it is not there.
bool flag(const json& entry, const std::string& key, const std::string& path,
          const std::string& origin);

// Optional members that fill an environment field when present with the right type, and leave
// it null otherwise (a file's environment is informative: a wrong type there refuses nothing).
std::optional<std::string> optional_text(const json& object, const std::string& key);
std::optional<double> optional_number(const json& object, const std::string& key);
std::optional<std::int64_t> optional_integer(const json& object, const std::string& key);

// A result with a fresh id and time, no run yet.
// Throws Error `ORIGIN:LINE: not UTF-8 (byte 0xXX at column N)` unless all of `text` is UTF-8:
// the readers of text (go test, Catch2's XML, pgbench, mapped logs) check their input once, so
// that a name or unit from it is never a string that append() refuses later without the file.
void require_utf8(std::string_view text, const std::string& origin);

ResultRecord new_result(std::string bench, Params params = {});
// The shape the engine gives a case that produced no measurement (docs/engine.md): metric
// `failed`, field `failure`.
ResultRecord failed_result(std::string bench, const std::string& message, std::int64_t ops,
                           std::int64_t errors);

bool ends_with(std::string_view s, std::string_view suffix);
bool starts_with(std::string_view s, std::string_view prefix);

// Milliseconds since the epoch (asv's `date`, mitata's `now`) as RFC 3339 UTC.
std::string rfc3339_of_milliseconds(std::int64_t ms);

// A param's value from JSON: a string, boolean, integer or number as it is, anything else (a
// list, an object, null) as its JSON text.
ParamValue json_param(const json& value);

// A param's value as a harness writes it in a name: an integer or a number when the whole text
// is one, else the text.
ParamValue param_value(const std::string& text);

}  // namespace benchledger::import::detail
