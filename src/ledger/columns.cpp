// The indexed columns of a record (see columns.hpp).
#include "ledger/columns.hpp"

#include <string>

#include <nlohmann/json.hpp>

namespace benchledger::ledger {

std::string params_text(const Params& params) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const auto& [key, value] : params) json[key] = to_json(value);
  return json.dump();
}

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
    columns.params = params_text(result->params);
  } else if (const auto* note = std::get_if<NoteRecord>(&record)) {
    columns.bench = note->bench;
    columns.target = note->target;
  }
  return columns;
}

namespace {

// The names of the columns that differ, as "label, run".
std::string differing(const Columns& stored, const Columns& record) {
  std::string out;
  const auto compare = [&](const char* name, const auto& a, const auto& b) {
    if (a != b) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  compare("id", stored.id, record.id);
  compare("type", stored.type, record.type);
  compare("time", stored.time, record.time);
  compare("run", stored.run, record.run);
  compare("label", stored.label, record.label);
  compare("bench", stored.bench, record.bench);
  compare("params", stored.params, record.params);
  compare("git_commit", stored.git_commit, record.git_commit);
  compare("target", stored.target, record.target);
  return out;
}

}  // namespace

std::optional<Record> verify_row(ChainVerifier& verifier, std::int64_t seq, std::string_view bytes,
                                 const Columns& stored) {
  std::optional<Record> record = verifier.add(seq, bytes);
  if (!record) return record;
  const Columns wanted = columns_of(*record);
  if (stored != wanted) {
    verifier.add_bad(seq, wanted.id,
                     "its indexed columns disagree with its bytes (" + differing(stored, wanted) +
                         "): the table was changed outside benchledger, and queries through "
                         "them find the wrong records");
  }
  return record;
}

}  // namespace benchledger::ledger
