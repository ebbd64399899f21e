// Reading a failed result's `failure` field.
#include "model/failure.hpp"

namespace benchledger::model {

std::optional<ResultFailure> failure_of(const ResultRecord& result) {
  return failure_of(result.primary, result.header.extra);
}

std::optional<ResultFailure> failure_of(std::string_view primary, const nlohmann::json& extra) {
  if (primary != "failed") return std::nullopt;
  ResultFailure failure{"error", {}, {}};
  const auto found = extra.find("failure");
  if (found != extra.end() && found->is_object()) {
    failure.kind = found->value("kind", failure.kind);
    failure.message = found->value("message", std::string());
    if (const auto output = found->find("stderr"); output != found->end() && output->is_string()) {
      failure.output = output->get<std::string>();
    }
  }
  return failure;
}

std::string describe(const ResultFailure& failure) {
  return failure.message.empty() ? failure.kind : failure.kind + ": " + failure.message;
}

}  // namespace benchledger::model
