// Reading a failed result's `failure` field.
#include "model/failure.hpp"

namespace benchledger::model {

std::optional<ResultFailure> failure_of(const ResultRecord& result) {
  if (result.primary != "failed") return std::nullopt;
  ResultFailure failure{"error", {}};
  const auto found = result.header.extra.find("failure");
  if (found != result.header.extra.end() && found->is_object()) {
    failure.kind = found->value("kind", failure.kind);
    failure.message = found->value("message", std::string());
  }
  return failure;
}

std::string describe(const ResultFailure& failure) {
  return failure.message.empty() ? failure.kind : failure.kind + ": " + failure.message;
}

}  // namespace benchledger::model
