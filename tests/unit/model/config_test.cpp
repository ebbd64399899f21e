// The config file is read as documented, and anything unknown or mistyped is refused by name.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

#include "model/config_text.hpp"
#include "support/scratch_dir.hpp"

using namespace benchledger;

namespace {

std::filesystem::path write_config(const std::string& text) {
  // One folder for the test program's config files, removed when it exits.
  static const test_support::ScratchDir dir;
  const auto path = dir / "benchledger.json";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a full config file is read") {
  const auto path = write_config(R"({
    "ledger": "sqlite:ledger/bench.db", "project": "demo",
    "thresholds": {"sort/*": 10, "sort/uniform": 3},
    "run": {"suites": ["executors"], "binaries": ["build/b"],
            "commands": [{"name": "ls", "command": ["ls", "{dir}"], "params": {"dir": ["/", "/tmp"]},
                          "runs": 5, "warmup": 1}]}})");
  const Config config = load_config(path);
  CHECK(config.ledger == "sqlite:ledger/bench.db");
  CHECK(config.project == "demo");
  CHECK(config.suites == std::vector<std::string>{"executors"});
  CHECK(config.binaries == std::vector<std::string>{"build/b"});
  REQUIRE(config.commands.size() == 1);
  CHECK(config.commands[0].params.at("dir") == std::vector<std::string>{"/", "/tmp"});
  CHECK(config.commands[0].runs == 5);
  CHECK(config.threshold_for("sort/uniform", 5) == 3);  // exact match wins over the glob
  CHECK(config.threshold_for("sort/mixed", 5) == 10);
  CHECK(config.threshold_for("sqlite/insert", 5) == 5);
}

TEST_CASE("threshold globs are tried in the order the file lists them, not alphabetically") {
  // "sort/*" sorts before "sort/u*": a parser that sorts keys would try it first.
  const Config narrow_first =
      load_config(write_config(R"({"thresholds": {"sort/u*": 3, "sort/*": 10}})"));
  CHECK(narrow_first.threshold_for("sort/uniform", 5) == 3);
  CHECK(narrow_first.threshold_for("sort/mixed", 5) == 10);
  REQUIRE(narrow_first.thresholds.size() == 2);
  CHECK(narrow_first.thresholds[0].first == "sort/u*");

  const Config broad_first =
      load_config(write_config(R"({"thresholds": {"sort/*": 10, "sort/u*": 3}})"));
  CHECK(broad_first.threshold_for("sort/uniform", 5) == 10);

  // An exact name wins over every glob wherever it stands.
  const Config exact_last = load_config(
      write_config(R"({"thresholds": {"sort/u*": 3, "sort/*": 10, "sort/uniform": 7}})"));
  CHECK(exact_last.threshold_for("sort/uniform", 5) == 7);
}

TEST_CASE("unknown and mistyped keys in the config file are refused by name") {
  CHECK_THROWS_WITH(load_config(write_config(R"({"ledgr": "x"})")),
                    Catch::Contains("field \"ledgr\": unknown key"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"run": {"suite": []}})")),
                    Catch::Contains("field \"run.suite\": unknown key"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"thresholds": {"a": "ten"}})")),
                    Catch::Contains("field \"thresholds.a\": expected a number"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"project": )")),
                    Catch::Contains("malformed JSON"));
}

TEST_CASE("the gate section is read, its run entries split into words as a shell would") {
  const auto path = write_config(R"({"gate": {
    "build": "make bench", "prepare": "build/gb --out=gb.json", "program": "build/bench",
    "rounds": 3,
    "run": ["--name 'two words' --runs 4 -- sh -c \"echo \\\"hi\\\" $HOME\"", "--import google-benchmark gb.json"]}})");
  const Config config = load_config(path);
  REQUIRE(config.gate);
  CHECK(config.gate->build == "make bench");
  CHECK(config.gate->prepare == "build/gb --out=gb.json");
  CHECK(config.gate->program == "build/bench");
  CHECK(config.gate->rounds == 3);
  REQUIRE(config.gate->run.size() == 2);
  CHECK(config.gate->run[0] == std::vector<std::string>{"--name", "two words", "--runs", "4", "--",
                                                        "sh", "-c", "echo \"hi\" $HOME"});
  CHECK(config.gate->run[1] == std::vector<std::string>{"--import", "google-benchmark", "gb.json"});
}

TEST_CASE("a gate section that cannot work is refused, naming the key") {
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"build": "make"}})")),
                    Catch::Contains("field \"gate.run\": missing"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": []}})")),
                    Catch::Contains("field \"gate.run\": needs at least one entry"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["-- sh -c 'echo"]}})")),
                    Catch::Contains("field \"gate.run[0]\": unterminated ' quote"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["--runs 3", "--label=x"]}})")),
                    Catch::Contains("field \"gate.run[1]\": --label is the gate's to set"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "build": " "}})")),
                    Catch::Contains("field \"gate.build\": an empty shell command"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "rounds": 0}})")),
                    Catch::Contains("field \"gate.rounds\": expected a whole number from 1"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "round": 2}})")),
                    Catch::Contains("field \"gate.round\": unknown key"));
  // A command's own flags after `--` are the command's.
  CHECK_NOTHROW(load_config(write_config(R"({"gate": {"run": ["-- tool --format json"]}})")));
}

TEST_CASE("a config file's text read from a revision is named by its origin, not a path") {
  const Config config =
      model::parse_config(R"({"gate": {"run": ["--runs 3 -- x"]}})", "benchledger.json at HEAD");
  REQUIRE(config.gate);
  CHECK(config.path.empty());
  CHECK_THROWS_WITH(
      model::parse_config(R"({"gate": {"run": ["--label=x"]}})", "benchledger.json at v1.2"),
      Catch::StartsWith("benchledger.json at v1.2: field \"gate.run[0]\": --label is the gate's"));
  CHECK_THROWS_WITH(model::parse_config("{", "benchledger.json at HEAD"),
                    Catch::StartsWith("benchledger.json at HEAD: malformed JSON"));
  CHECK_THROWS_WITH(
      model::parse_config(std::string(17 * 1024 * 1024, ' '), "benchledger.json at HEAD"),
      Catch::Contains("more than a config file may hold"));
}

TEST_CASE("the gate section's judging options are read in the command line's words") {
  const Config config = load_config(write_config(R"({"gate": {"run": ["x"],
    "metric": "cpu", "fail-on": ["inconclusive"], "allow-missing": true, "threshold": 7.5,
    "budget": 120, "duet": true, "undecided": "fail", "design": "pooled"}})"));
  REQUIRE(config.gate);
  CHECK(config.gate->metrics == std::vector<std::string>{"cpu"});
  CHECK(config.gate->fail_on == std::vector<std::string>{"inconclusive"});
  CHECK(config.gate->allow_missing == true);
  CHECK(config.gate->threshold == 7.5);
  CHECK(config.gate->budget == 120.0);
  CHECK(config.gate->duet == true);
  CHECK(config.gate->undecided_fails == true);
  CHECK(config.gate->paired == false);
  const Config defaults = load_config(write_config(R"({"gate": {"run": ["x"]}})"));
  CHECK(defaults.gate->metrics.empty());
  CHECK_FALSE(defaults.gate->budget);
  CHECK_FALSE(defaults.gate->undecided_fails);
  CHECK_FALSE(defaults.gate->paired);

  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "budget": 0}})")),
                    Catch::Contains("field \"gate.budget\": expected seconds"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "undecided": "maybe"}})")),
                    Catch::Contains("field \"gate.undecided\": \"maybe\" is neither \"fail\" nor "
                                    "\"pass\""));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "design": "both"}})")),
                    Catch::Contains("field \"gate.design\""));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "threshold": -1}})")),
                    Catch::Contains("field \"gate.threshold\": expected a percentage"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"gate": {"run": ["x"], "duet": "yes"}})")),
                    Catch::Contains("field \"gate.duet\""));
}

TEST_CASE("config numbers take the ranges the flags take, named by key when out of them") {
  const auto command_with = [](const std::string& member) {
    return R"({"run": {"commands": [{"name": "c", "command": ["true"], )" + member + "}]}}";
  };
  struct Bad {
    std::string text, message;
  };
  const std::vector<Bad> cases = {
      // A FAILED result appended for ever, or a run that never ends.
      {command_with(R"("runs": -3)"),
       "field \"run.commands[0].runs\": must be a whole number from 1 to 1000000, got -3"},
      {command_with(R"("warmup": -5)"),
       "field \"run.commands[0].warmup\": must be a whole number from 0 to 1000000, got -5"},
      {command_with(R"("runs": 100000000000)"),
       "field \"run.commands[0].runs\": must be a whole number from 1 to 1000000, got "
       "100000000000"},
      {command_with(R"("runs": 2.5)"),
       "field \"run.commands[0].runs\": must be a whole number from 1 to 1000000, got 2.5"},
      // A number no double holds: nlohmann's out_of_range, which ended the program with exit 3.
      {command_with(R"("runs": 1e999)"),
       "field \"run.commands[0].runs\": the number 1e999 is out of the range of a double"},
      {R"({"thresholds": {"sort/*": 1e999}})",
       "field \"thresholds.sort/*\": the number 1e999 is out of the range of a double"},
      // Nested past the limit: refused while parsing, before a value that deep exists.
      {R"({"run": {"commands": )" + std::string(100000, '[') + std::string(100000, ']') + "}}",
       "field \"run.commands[0][0][0][0][0][0]…\": nested deeper than 512 levels of arrays and "
       "objects"},
      {R"({"thresholds": {"sort/*": 5000}})",
       "field \"thresholds.sort/*\": a threshold in percent must be a number from 0 to 1000"},
  };
  for (const Bad& bad : cases) {
    INFO(bad.text);
    CHECK_THROWS_AS(load_config(write_config(bad.text)), Error);
    CHECK_THROWS_WITH(load_config(write_config(bad.text)), Catch::Contains(bad.message));
  }
}

TEST_CASE("a key repeated in the config file, or a glob fnmatch would read as text, is refused") {
  CHECK_THROWS_WITH(load_config(write_config(R"({"project": "a", "project": "b"})")),
                    Catch::Contains("field \"project\": appears more than once in its object"));
  CHECK_THROWS_WITH(
      load_config(write_config(R"({"thresholds": {"sort/*": 10, "sort/*": 3}})")),
      Catch::Contains("field \"thresholds.sort/*\": appears more than once in its object"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"thresholds": {"sort/[ab": 10}})")),
                    Catch::Contains("field \"thresholds.sort/[ab\": not a valid glob: the '[' at "
                                    "character 6 is never closed by ']'"));
  CHECK_THROWS_WITH(load_config(write_config(R"({"thresholds": {"sort\\": 10}})")),
                    Catch::Contains("not a valid glob: ends in an unescaped '\\'"));
  // Brackets that close, classes included, are globs.
  const Config config = load_config(
      write_config(R"({"thresholds": {"sort/[]ab]*": 1, "n[[:digit:]]": 2, "x[!a]": 3}})"));
  CHECK(config.threshold_for("sort/]x", 5) == 1);
  CHECK(config.threshold_for("n7", 5) == 2);
}

TEST_CASE("a config path that is a directory or a FIFO is refused at once, saying what it is") {
  const test_support::ScratchDir dir;
  std::filesystem::create_directories(dir / "benchledger.json");
  CHECK_THROWS_WITH(load_config(dir / "benchledger.json"),
                    Catch::Contains("benchledger.json: it is a directory, not a regular file"));
  // A FIFO with no writer: opening it to read would wait for one for ever.
  REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(load_config(dir / "fifo.json"),
                    Catch::Contains("fifo.json: it is a FIFO, not a regular file"));
}

TEST_CASE("deterministic thresholds are their own list, read like the others") {
  const Config config = load_config(write_config(
      R"({"thresholds": {"parse/*": 10}, "deterministic_thresholds": {"parse/*": 1, "parse/json": 2}})"));
  CHECK(config.deterministic_threshold_for("parse/json", 0.5) == 2);
  CHECK(config.deterministic_threshold_for("parse/xml", 0.5) == 1);
  CHECK(config.deterministic_threshold_for("sort/copy", 0.5) == 0.5);
  CHECK(config.threshold_for("parse/json", 5) == 10);  // the time thresholds stay apart
  CHECK_THROWS_WITH(load_config(write_config(R"({"deterministic_thresholds": {"a": "one"}})")),
                    Catch::Contains("field \"deterministic_thresholds.a\": expected a number"));
}
