// `run --import ndjson|csv FILE --map ...` reads a team's own log through the documented mapping,
// one sample per line, and refuses a bad mapping or a line without a mapped field with exit 2
// naming the field, the file and the line, appending nothing.
#include <catch2/catch.hpp>

#include "import_compare_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

const std::string k_map = "bench=.name,value=.ms,unit=ms,params=.size";

// A team's own benchmark logger, as seed projects write theirs: it times two functions with
// perf_counter and appends one line per round, NDJSON or CSV.
void write_log(const std::filesystem::path& dir, const std::filesystem::path& output,
               const std::string& syntax) {
  std::ofstream(dir / "logger.py") << R"py(import csv, json, sys, time
syntax, path = sys.argv[1], sys.argv[2]
rows = []
for round_ in range(30):
    for name, size in (("sort", 64), ("sort", 512), ("sum", 512)):
        data = list(range(size, 0, -1))
        start = time.perf_counter()
        for _ in range(100):
            sorted(data) if name == "sort" else sum(data)
        rows.append({"name": name, "ms": (time.perf_counter() - start) * 1e3, "size": size,
                     "round": round_})
with open(path, "w", newline="") as f:
    if syntax == "ndjson":
        for row in rows:
            f.write(json.dumps(row) + "\n")
    else:
        writer = csv.DictWriter(f, fieldnames=["name", "ms", "size", "round"])
        writer.writeheader()
        writer.writerows(rows)
)py";
  const auto produced = run(python3(), {(dir / "logger.py").string(), syntax, output.string()});
  if (produced.status != 0) throw std::runtime_error("logger.py failed: " + produced.err);
}

}  // namespace

TEST_CASE("an NDJSON or CSV log becomes one result per bench and params, one sample a line") {
  ScratchDir dir;
  for (const std::string syntax : {"ndjson", "csv"}) {
    INFO(syntax);
    const auto log = dir.path() / ("log." + syntax);
    write_log(dir.path(), log, syntax);
    const auto ledger = dir.path() / (syntax + ".ledger.ndjson");
    const auto result = run_cli(
        {"run", "--import", syntax, log.string(), "--map", k_map, "--ledger", ledger.string()});
    INFO(result.err);
    REQUIRE(result.status == 0);
    const auto records = read_ledger(ledger);
    CHECK(records[0]["source"] == syntax);
    CHECK(records[0]["env"]["host"].is_null());  // the log does not say where it ran
    CHECK(records[0]["imported"]["env"] == "file");
    const auto results = results_of(records);
    REQUIRE(results.size() == 3);
    CHECK(results[0]["bench"] == "sort");
    CHECK(results[0]["params"] == json{{"size", 64}});
    CHECK(results[1]["params"] == json{{"size", 512}});
    CHECK(results[2]["bench"] == "sum");
    CHECK(results[0]["primary"] == "time");
    CHECK(results[0]["metrics"]["time"]["unit"] == "ms");
    CHECK(results[0]["metrics"]["time"]["better"] == "lower");
    CHECK(results[0]["metrics"]["time"]["samples"].size() == 30);
    CHECK(results[0]["ops"] == 30);
    CHECK(schema_problems(ledger).empty());
  }
}

TEST_CASE(
    "the mapping names a metric, its direction and constant params, and reads nested "
    "members") {
  ScratchDir dir;
  const auto log = dir.path() / "nested.ndjson";
  std::ofstream(log) << R"({"case": {"id": "load"}, "out": {"rps": 1200}, "ok": "higher"}
{"case": {"id": "load"}, "out": {"rps": 1250}, "ok": "higher"}
)";
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto result = run_cli({"run", "--import", "ndjson", log.string(), "--map",
                               "bench=.case.id,value=.out.rps,unit=req/s,metric=rate,better=.ok,"
                               "param.host=ci-7",
                               "--ledger", ledger.string(), "-q"});
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["bench"] == "load");
  CHECK(results[0]["params"] == json{{"host", "ci-7"}});
  CHECK(results[0]["primary"] == "rate");
  CHECK(results[0]["metrics"]["rate"]["better"] == "higher");
  CHECK(results[0]["metrics"]["rate"]["samples"] == json{1200, 1250});
}

TEST_CASE(
    "a bad mapping or a line that lacks a mapped field is refused naming field, file and "
    "line, and nothing is appended") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto good = dir.path() / "good.ndjson";
  std::ofstream(good) << R"({"name": "a", "ms": 1.5, "size": 8})" << '\n';
  REQUIRE(run_cli({"run", "--import", "ndjson", good.string(), "--map", k_map, "--ledger",
                   ledger.string(), "-q"})
              .status == 0);
  const std::string before = read_file(ledger);
  struct Case {
    std::string format, content, map, message;
  };
  const std::vector<Case> cases = {
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n{\"name\": \"b\", \"size\": 8}\n", k_map,
       ":1: field \".size\" is missing (mapped by params=.size)"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1, \"size\": 8}\n\n{\"name\": \"b\", \"size\": 8}\n",
       k_map, ":3: field \".ms\" is missing (mapped by value=.ms)"},
      {"ndjson", "{\"name\": \"a\", \"ms\": \"1.5\", \"size\": 8}\n", k_map,
       ":1: field \".ms\" (mapped by value=.ms): expected a number, got \"1.5\""},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1, \"size\": 8}\n{\"name\": \"a\", \"ms\": 2", k_map,
       ":2: not JSON"},
      {"ndjson", "[1, 2]\n", k_map, ":1: expected a JSON object"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,valu=.ms,unit=ms",
       "--map \"valu=.ms\": unknown key \"valu\""},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,unit=ms",
       "--map \"bench=.name,unit=ms\": value= is missing"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,value=3,unit=ms",
       "--map \"value=3\": value must be a field of the line (.NAME)"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,value=.ms,unit=ms,better=up",
       "--map \"better=up\": better is lower, higher or a field"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,value=.ms,unit=ms,bench=.x",
       "--map \"bench=.x\": \"bench\" is mapped twice"},
      {"ndjson", "{\"name\": \"a\", \"ms\": 1}\n", "bench=.name,value=.,unit=ms",
       "--map \"value=.\": a field name is empty"},
      {"csv", "name,ms,size\na,1,8\nb,2\n", k_map, ":3: 2 fields, the header has 3"},
      {"csv", "name,ms,size\na,1,8\nb,,8\n", k_map,
       ":3: field \".ms\" is missing (mapped by value=.ms)"},
      {"csv", "name,ms,size\na,fast,8\n", k_map,
       ":2: field \".ms\" (mapped by value=.ms): expected a number, got \"fast\""},
      {"csv", "name,millis,size\na,1,8\n", k_map,
       ":1: no column \"ms\" in the header (mapped by value=.ms)"},
      {"csv", "name,ms,size\n\"a,1,8\n", k_map, ":2: a quoted field is not closed"},
      {"csv", "", k_map, "no header line"},
      {"ndjson", "\n", k_map, "no lines to import"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const auto file = dir.path() / ("bad" + std::to_string(i) + "." + c.format);
    std::ofstream(file) << c.content;
    const auto result = run_cli(
        {"run", "--import", c.format, file.string(), "--map", c.map, "--ledger", ledger.string()});
    INFO(c.format << " --map " << c.map << ": " << c.content);
    CHECK(result.status == 2);
    CHECK_THAT(result.err, Catch::Contains(file.string()) && Catch::Contains(c.message));
  }
  const auto no_map =
      run_cli({"run", "--import", "ndjson", good.string(), "--ledger", ledger.string()});
  CHECK(no_map.status == 2);
  CHECK_THAT(no_map.err, Catch::Contains("needs --map"));
  const auto map_elsewhere = run_cli(
      {"run", "--import", "hyperfine", good.string(), "--map", k_map, "--ledger", ledger.string()});
  CHECK(map_elsewhere.status == 2);
  CHECK_THAT(map_elsewhere.err, Catch::Contains("--map is for --import ndjson and csv"));
  CHECK(read_file(ledger) == before);  // nothing appended
}

TEST_CASE("two logs, the second with one case 20% slower: compare flags exactly that case") {
  ScratchDir dir;
  for (const std::string syntax : {"ndjson", "csv"}) {
    INFO(syntax);
    const auto base = dir.path() / ("base." + syntax);
    const auto slowed = dir.path() / ("slowed." + syntax);
    write_log(dir.path(), base, syntax);
    const auto injected =
        run(python3(), {(source_dir() / "tests/cli/import/inject_slowdown.py").string(), syntax,
                        base.string(), slowed.string(), "sum"});
    REQUIRE(injected.status == 0);
    const auto found = regressions_between({"--import", syntax, base.string(), "--map", k_map},
                                           {"--import", syntax, slowed.string(), "--map", k_map},
                                           dir.path() / (syntax + ".ledger.ndjson"));
    INFO(found.output);
    CHECK(found.status == 1);
    CHECK(found.cases == std::vector<std::string>{"sum {\"size\":512}"});
  }
}
