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
