// A result that did not measure: the engine and the importers record a failed case as primary
// metric "failed" with `failure: {kind, message}` among the record's extra fields (docs/engine.md,
// "How a failed case is recorded").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <benchledger/record.hpp>

namespace benchledger::model {

struct ResultFailure {
  std::string kind;     // error, crashed or timeout
  std::string message;  // `every run failed (first: run 1 exited with status 3)`; may be empty
  // The last lines of the failed run's stderr (`failure.stderr`, model::output_tail), or empty.
  std::string output;
};

// The failure a result records, or nothing for a result that measured.
std::optional<ResultFailure> failure_of(const ResultRecord& result);
// The same from a result's primary metric and its unknown fields (Header::extra).
std::optional<ResultFailure> failure_of(std::string_view primary, const nlohmann::json& extra);

// `error: every run failed (first: run 1 exited with status 3)`, or the kind alone.
std::string describe(const ResultFailure& failure);

}  // namespace benchledger::model
