// What a careless or hostile command line gets end to end: no password it holds reaches a
// ledger or any output, no command exits 0 when its output went nowhere, and bad flags and
// config files are refused with a message that names them (and the subcommand or flag a typo
// meant).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "run_support.hpp"

using namespace benchledger::run_test;

namespace {

constexpr const char* k_plant = "pl4nted-s3cret";

// Runs the CLI with standard output opened on `out_path` (a device such as /dev/full).
Invocation run_cli_with_stdout(const std::vector<std::string>& args, const char* out_path) {
  return run(cli(), args, {}, out_path);
}

}  // namespace

TEST_CASE("a password planted in every place a command line holds one reaches no output") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  const std::string plant = k_plant;
  // An environment variable that looks secret: nothing may copy the environment into a record.
  ::setenv("BENCH_API_TOKEN", k_plant, 1);
  const std::vector<std::string> planted = {
      "--prepare",
      "PGPASSWORD=" + plant + " true",
      "--",
      "true",
      "postgresql://ci:" + plant + "@db.internal/bench",
      "postgresql://db.internal/bench?user=ci&password=" + plant + "&sslmode=off",
      "host=db.internal user=ci password=" + plant + " dbname=bench",
      "host=db.internal password='" + plant + " with spaces'",
      "--token",
      plant,
      "--password=" + plant,
      "API_KEY=" + plant,
      "https://x:" + plant + "@github.com/o/r"};
  std::vector<std::string> outputs;
  const auto keep = [&outputs](const Invocation& result) {
    INFO(result.err);
    CHECK((result.status == 0 || result.status == 1));
    outputs.push_back(result.out);
    outputs.push_back(result.err);
  };
  std::vector<std::string> base_run = {"run", "--ledger=" + ledger, "--runs", "2", "--warmup",
                                       "0",   "--baseline"};
  base_run.insert(base_run.end(), planted.begin(), planted.end());
  keep(run_cli(base_run));
  std::vector<std::string> json_run = {"run",      "--ledger", ledger,     "--runs", "2",
                                       "--warmup", "0",        "--format", "json"};
  json_run.insert(json_run.end(), planted.begin(), planted.end());
  keep(run_cli(json_run));
  for (const char* selector : {"latest", "baseline"}) {
    keep(run_cli({"ledger", "show", selector, "--ledger", ledger}));
  }
  keep(run_cli({"ledger", "log", "--ledger", ledger}));
  keep(run_cli({"ledger", "export", "--ledger", ledger}));
  keep(run_cli({"ledger", "export", "--run", "latest", "--ledger", ledger}));
  keep(run_cli({"ledger", "verify", "--ledger", ledger}));
  for (const char* format : {"table", "md", "json", "csv", "junit"}) {
    keep(run_cli({"compare", "baseline", "latest", "--ledger", ledger, "--format", format}));
  }
  for (const char* format : {"md", "html"}) {
    keep(run_cli({"report", "latest", "--ledger", ledger, "--format", format}));
    keep(run_cli(
        {"report", "latest", "--against", "baseline", "--ledger", ledger, "--format", format}));
  }
  ::unsetenv("BENCH_API_TOKEN");
  outputs.push_back(read_file(ledger));  // the raw bytes, for ever

  for (std::size_t i = 0; i < outputs.size(); ++i) {
    INFO("output " << i << ":\n" << outputs[i]);
    CHECK(outputs[i].find(plant) == std::string::npos);
  }
  // The command was recorded, with each secret replaced: the check above is not vacuous.
  const std::string ledger_bytes = outputs.back();
  for (const char* redacted :
       {R"("PGPASSWORD=*** true")", R"("postgresql://ci:***@db.internal/bench")",
        R"(password=***&sslmode=off")", R"(user=ci password=*** dbname=bench")",
        R"("--token","***")", R"("--password=***")", R"("API_KEY=***")",
        R"("https://***@github.com/o/r")"}) {
    INFO(redacted);
    CHECK(ledger_bytes.find(redacted) != std::string::npos);
  }
  // The benchmark's name, made from the command, is redacted the same way.
  CHECK(ledger_bytes.find(R"("bench":"true postgresql://ci:***@db.internal/bench)") !=
        std::string::npos);
}

TEST_CASE("a command whose standard output cannot be written exits 2 and says so") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  const auto setup = run_cli({"run", "--ledger", ledger, "--runs", "2", "--warmup", "0",
                              "--baseline", "--quiet", "--", "true"});
  REQUIRE(setup.status == 0);
  const std::vector<std::vector<std::string>> commands = {
      {"ledger", "verify", "--ledger", ledger},
      {"ledger", "log", "--ledger", ledger},
      {"ledger", "show", "latest", "--ledger", ledger},
      {"ledger", "export", "--ledger", ledger},
      {"ledger", "note", "latest", "--kind", "comment", "--text", "seen", "--author", "ci",
       "--ledger", ledger},
      {"compare", "baseline", "latest", "--ledger", ledger},
      {"report", "latest", "--ledger", ledger},
      {"env"},
      {"run", "--ledger", ledger, "--runs", "2", "--warmup", "0", "--quiet", "--", "true"},
      {"--help"},
  };
  for (const auto& args : commands) {
    const Invocation full = run_cli_with_stdout(args, "/dev/full");
    INFO(args[0] << " " << (args.size() > 1 ? args[1] : "") << ": " << full.err);
    CHECK(full.status == 2);
    CHECK_THAT(full.err, Catch::Contains("cannot write") && Catch::Contains("standard output"));
  }
  // The same commands with somewhere to write succeed: the failure above is stdout's alone.
  CHECK(run_cli_with_stdout({"ledger", "verify", "--ledger", ledger}, "/dev/null").status == 0);
}

TEST_CASE("bad counts and rates on the command line are refused, naming the flag and its range") {
  ScratchDir dir;
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  REQUIRE(run_cli({"run", "--ledger", ledger, "--runs", "2", "--quiet", "--", "true"}).status == 0);
  for (const char* limit : {"0", "-1", "99999999999999999999999", "1e3"}) {
    const Invocation log = run_cli({"ledger", "log", "-n", limit, "--ledger", ledger});
    INFO(limit << ": " << log.err);
    CHECK(log.status == 2);
    CHECK_THAT(log.err, Catch::Contains("must be a whole number from 1 to 1000000000, got \"" +
                                        std::string(limit) + "\""));
    CHECK(log.out.empty());
  }
  CHECK(run_cli({"ledger", "log", "-n", "1", "--ledger", ledger}).status == 0);
  for (const char* command : {"compare", "report"}) {
    std::vector<std::string> args = {command, "latest"};
    if (std::string(command) == "compare") args.push_back("latest");
    args.insert(args.end(), {"--alpha", "0", "--ledger", ledger});
    const Invocation alpha = run_cli(args);
    INFO(alpha.err);
    CHECK(alpha.status == 2);
    CHECK_THAT(alpha.err,
               Catch::Contains("--alpha: must be greater than 0 and at most 0.5, got \"0\""));
  }
}

TEST_CASE("a benchledger.json that is a directory or holds a bad number is refused by name") {
  ScratchDir dir;
  std::filesystem::create_directories(dir.path() / ".git");  // the project root
  const std::string ledger = (dir.path() / "ledger.ndjson").string();
  std::filesystem::create_directories(dir.path() / "benchledger.json");
  const Invocation directory = run_cli({"run", "--ledger", ledger, "--", "true"}, dir.path());
  CHECK(directory.status == 2);
  CHECK_THAT(directory.err,
             Catch::Contains("benchledger.json: it is a directory, not a regular file"));
  std::filesystem::remove(dir.path() / "benchledger.json");

  for (const std::string& text :
       {std::string(R"({"project": 1e999})"),
        std::string(R"({"run": {"commands": [{"name": "c", "command": ["true"], "runs": -3}]}})"),
        std::string(R"({"run": {"commands": [{"name": "c", "command": ["true"], "warmup": -5}]}})"),
        std::string(R"({"run": {"commands": [{"name": "c", "command": ["true"],)"
                    R"( "runs": 100000000000}]}})")}) {
    std::ofstream(dir.path() / "benchledger.json") << text;
    const Invocation bad = run_cli({"run", "--ledger", ledger, "--quiet"}, dir.path());
    INFO(text << ": " << bad.err);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.err, Catch::Contains("benchledger.json: field \""));
  }
  CHECK_FALSE(std::filesystem::exists(ledger));  // nothing appended, no FAILED result kept
}

TEST_CASE("a mistyped subcommand or flag gets a did-you-mean, and a bare benchledger lists them") {
  const auto bare = run_cli({});
  CHECK(bare.status == 2);
  for (const char* sub : {"run", "compare", "report", "ledger", "gate", "bisect", "history"})
    CHECK_THAT(bare.err, Catch::Contains(sub));
  CHECK_THAT(bare.err, Catch::Contains("Subcommands:"));

  const auto subcommand = run_cli({"comapre", "a", "b"});
  CHECK(subcommand.status == 2);
  CHECK_THAT(subcommand.err, Catch::Contains("did you mean compare (not comapre)?"));
  const auto far = run_cli({"frobnicate"});
  CHECK(far.status == 2);
  CHECK_THAT(far.err, Catch::Contains("frobnicate is not a subcommand; the subcommands: env, run, "
                                      "compare"));

  const auto flag = run_cli({"compare", "--treshold", "5", "a", "b"});
  CHECK(flag.status == 2);
  CHECK_THAT(flag.err, Catch::Contains("did you mean --threshold (not --treshold)?"));
  const auto with_value = run_cli({"compare", "--treshold=5", "a", "b"});
  CHECK_THAT(with_value.err, Catch::Contains("did you mean --threshold (not --treshold)?"));
}
