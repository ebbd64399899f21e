// The config file is read as documented, and anything unknown or mistyped is refused by name.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>

using namespace benchledger;

namespace {

// One folder for the test program's config files, removed when it exits.
struct ConfigDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("benchledger-config-" + std::to_string(::getpid()));
  ~ConfigDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

std::filesystem::path write_config(const std::string& text) {
  static const ConfigDir dir;
  std::filesystem::create_directories(dir.path);
  const auto path = dir.path / "benchledger.json";
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
