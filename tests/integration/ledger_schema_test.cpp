// Every kind of record the code writes validates against docs/schema/benchledger-1.json, and the
// schema refuses records that break it (checked with Debian's python3-jsonschema).
#include <catch2/catch.hpp>

#include "env/env.hpp"
#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

ProcessResult check_schema(const std::vector<std::string>& files, bool expect_invalid) {
  const char* python = std::getenv("BENCHLEDGER_PYTHON3");
  const char* source = std::getenv("BENCHLEDGER_SOURCE_DIR");
  REQUIRE(python != nullptr);
  REQUIRE(source != nullptr);
  const std::string root = source;
  std::vector<std::string> argv = {python, root + "/tests/integration/ledger_schema_check.py",
                                   root + "/docs/schema/benchledger-1.json"};
  if (expect_invalid) argv.push_back("--expect-invalid");
  argv.insert(argv.end(), files.begin(), files.end());
  return run_process(argv);
}

// A run with every nullable field null, as a machine that told nothing would give.
RunRecord run_of_nulls() {
  RunRecord run = sample_run(new_ulid(), "x");
  run.header.time = now_rfc3339();
  run.label.reset();
  run.git = GitState{};
  run.env = Env{};
  run.env.fingerprint = std::string(64, '0');
  run.warnings.clear();
  return run;
}

}  // namespace

TEST_CASE("every kind of record written to a ledger validates against the JSON Schema") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const auto store = open_store(path.string());

  // A run with a full sample environment, results with every kind of param and metric.
  auto batch = fresh_batch("baseline", 2);
  auto& result = std::get<ResultRecord>(batch[2]);
  result.metrics.at("latency").summary.p90 = 990;
  result.metrics.at("latency").summary.p95 = 995;
  result.metrics.at("latency").summary.p999 = 1000;
  result.params["name"] = std::string("with \"quotes\" and ünïcode");
  result.header.extra["added_later"] = "a field of a newer minor version";
  store->append(batch);

  // A run of nulls with a result of one value and no params; a run with this machine's env.
  RunRecord nulls = run_of_nulls();
  ResultRecord single = sample_result(nulls.header.id, new_ulid());
  single.params.clear();
  single.metrics = {{"ops", metric_from_samples("ops/s", Better::higher, {1234.5})}};
  single.metrics.at("ops").samples.reset();
  single.primary = "ops";
  store->append({nulls, single});

  env::CaptureOptions options;
  options.run_tools = false;
  RunRecord here = sample_run(new_ulid(), "current");
  here.header.time = now_rfc3339();
  here.env = env::capture(options);
  store->append({here});

  // Notes of every kind, with and without a bench.
  for (const NoteKind kind :
       {NoteKind::accept_regression, NoteKind::invalidate, NoteKind::comment}) {
    NoteRecord note = fresh_note(header_of(batch[1]).id);
    note.kind = kind;
    if (kind == NoteKind::comment) note.bench.reset();
    store->append({note});
  }
  // And what the CLI writes itself: a note, and a run exported as a ledger of its own.
  const ProcessResult note =
      run_ledger({"note", "baseline", "--kind", "comment", "--text", "from the cli", "--author",
                  "ci", "--ledger", path.string()});
  REQUIRE(note.exit_code == 0);
  const ProcessResult exported =
      run_ledger({"export", "--run", "baseline", "--ledger", path.string()});
  REQUIRE(exported.exit_code == 0);
  write_file(dir / "export.ndjson", exported.out);

  const ProcessResult result_check =
      check_schema({path.string(), (dir / "export.ndjson").string()}, false);
  INFO(result_check.out << result_check.err);
  CHECK(result_check.exit_code == 0);
  CHECK_THAT(result_check.out, Catch::Contains("checked 17 records"));
}

TEST_CASE("the JSON Schema refuses records that break it") {
  ScratchDir dir;
  const auto path = dir / "bad.ndjson";
  const auto json_of = [](const Record& record) {
    return nlohmann::json::parse(serialize(record));
  };
  std::vector<nlohmann::json> bad;
  auto run = json_of(sample_run());
  run.erase("env");
  bad.push_back(run);
  run = json_of(sample_run());
  run["env"]["cpu"]["logical"] = "two";
  bad.push_back(run);
  run = json_of(sample_run());
  run["label"] = "has space";
  bad.push_back(run);
  run = json_of(sample_run());
  run["id"] = "01JDQ8Z6X0000000000000000I";  // I is not Crockford base32
  bad.push_back(run);
  auto result = json_of(sample_result());
  result["metrics"]["time"]["better"] = "up";
  bad.push_back(result);
  result = json_of(sample_result());
  result["ops"] = -1;
  bad.push_back(result);
  result = json_of(sample_result());
  result["params"]["list"] = nlohmann::json::array({1, 2});
  bad.push_back(result);
  auto note = json_of(sample_note());
  note["kind"] = "approve";
  bad.push_back(note);
  note = json_of(sample_note());
  note["schema"] = "benchledger/2";
  bad.push_back(note);
  std::string text;
  for (const auto& record : bad) text += record.dump() + "\n";
  write_file(path, text);
  const ProcessResult check = check_schema({path.string()}, true);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("checked 9 records"));
}
