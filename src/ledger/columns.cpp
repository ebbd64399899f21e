// The indexed columns of a record (see columns.hpp).
#include "ledger/columns.hpp"

#include <nlohmann/json.hpp>

namespace benchledger::ledger {

Columns columns_of(const Record& record) {
  Columns columns;
  columns.id = header_of(record).id;
  columns.type = std::string(type_name(record));
  columns.time = header_of(record).time;
  if (const auto* run = std::get_if<RunRecord>(&record)) {
    columns.label = run->label;
    columns.git_commit = run->git.commit;
  } else if (const auto* result = std::get_if<ResultRecord>(&record)) {
    columns.run = result->run;
    columns.bench = result->bench;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : result->params) params[key] = to_json(value);
    columns.params = params.dump();
  } else if (const auto* note = std::get_if<NoteRecord>(&record)) {
    columns.bench = note->bench;
    columns.target = note->target;
  }
  return columns;
}

bool verify_row(ChainVerifier& verifier, std::int64_t seq, std::string_view bytes,
                const Columns& stored) {
  if (!verifier.add(seq, bytes)) return false;
  if (stored != columns_of(parse_record(bytes))) {
    verifier.add_bad(seq, stored.id,
                     "its indexed columns disagree with its bytes: the table was changed outside "
                     "benchledger");
    return false;
  }
  return true;
}

}  // namespace benchledger::ledger
