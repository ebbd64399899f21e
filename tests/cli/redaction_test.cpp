// Every spelling of a secret that docs/records.md ("Secrets") names, planted in real `benchledger
// run` invocations, reaches no store's bytes (NDJSON and SQLite), no `ledger show`, `history` or
// report (Markdown and HTML), no run table and no message on stderr.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "run_support.hpp"

using namespace benchledger::run_test;

namespace {

// Each planted secret starts with this, so that one search finds any of them.
constexpr const char* k_marker = "Sekr3t";

std::string secret(const char* which) {
  return std::string(k_marker) + "-" + which;
}

// The planted spellings, one `run` each: the words before and after `--`.
std::vector<std::vector<std::string>> planted_runs() {
  return {
      // mysql's -p takes the password attached, and users write it apart too.
      {"--", "true", "mysql", "-u", "root", "-p" + secret("mysql-attached"), "-p",
       secret("mysql-apart")},
      // A token as a URL's user part, and USER:PASSWORD@HOST with no scheme.
      {"--", "true", "https://" + secret("url-user") + "@github.com/o/r",
       "ci:" + secret("user-password") + "@db.internal"},
      // Flag and value as two arguments, a flag whose '=' has nothing after it, and the flag
      // after psql's value-less --password.
      {"--", "true", "--auth", secret("auth"), "--token=", secret("token-equals-space"),
       "--password", "--token", secret("second-flag"), "--api-key=" + secret("api-key")},
      // Flag and value inside ONE argument: a --shell command, sh -c, --prepare and --cleanup.
      {"--shell", "--", "true --token " + secret("shell")},
      {"--", "sh", "-c", "true --token " + secret("sh-c") + " PASSWORD=" + secret("sh-c-key")},
      {"--prepare", "true --token " + secret("prepare"), "--cleanup",
       "true --token " + secret("cleanup"), "--", "true"},
      // libpq's keyword string with spaces round '=', and a header.
      {"--", "true", "host=db password = " + secret("libpq") + " dbname=b", "-H",
       "Authorization: Bearer " + secret("header")},
      // A param whose name looks secret: recorded as ***.
      {"--param", "token=" + secret("param"), "--", "true", "{token}"},
  };
}

}  // namespace

TEST_CASE("no planted secret reaches a store, show, history, a report, the run table or stderr") {
  ScratchDir dir;
  const std::filesystem::path ndjson = dir.path() / "ledger.ndjson";
  const std::filesystem::path sqlite = dir.path() / "ledger.sqlite";
  const std::vector<std::string> ledgers = {ndjson.string(), "sqlite:" + sqlite.string()};

  std::vector<std::pair<std::string, std::string>> outputs;  // what produced it, and it
  const auto keep = [&outputs](const std::string& what, const Invocation& result) {
    outputs.emplace_back(what + " (stdout)", result.out);
    outputs.emplace_back(what + " (stderr)", result.err);
  };
  for (const std::string& ledger : ledgers) {
    for (const auto& planted : planted_runs()) {
      std::vector<std::string> args = {"run", "--ledger", ledger, "--runs", "2", "--warmup", "0"};
      args.insert(args.end(), planted.begin(), planted.end());
      const Invocation result = run_cli(args);
      INFO(result.err);
      REQUIRE(result.status == 0);
      keep("run", result);
    }
  }

  // Flags refused before anything runs echo what they refuse: never the secret in it.
  const std::vector<std::vector<std::string>> refused = {
      {"run", "--pgbench", "-T 1 password=" + secret("pgbench"), "--dry-run"},
      {"run", "--pgbench", "-T 1 'password=" + secret("pgbench-quoted") + "'", "--dry-run"},
      {"run", "--token=" + secret("unknown-flag"), "--", "true"},
      {"run", "--api-key", secret("unknown-flag-apart"), "--", "true"},
      {"run", "--param", "password:" + secret("param-syntax"), "--", "true"},
      {"run", "--param", "token=a,b", "--", "true", "{token}"},
  };
  for (auto args : refused) {
    // Were one taken after all, it would go to the scratch ledger and not the project's.
    args.insert(args.begin() + 1, {"--ledger", (dir.path() / "refused.ndjson").string()});
    const Invocation result = run_cli(args);
    INFO(result.err);
    CHECK(result.status == 2);
    CHECK_FALSE(result.err.empty());
    keep("refused " + args[3], result);
  }

  for (const std::string& ledger : ledgers) {
    keep("export " + ledger, run_cli({"ledger", "export", "--ledger", ledger}));
    keep("log " + ledger, run_cli({"ledger", "log", "--ledger", ledger}));
    for (const char* format : {"table", "md", "json", "csv"}) {
      keep(std::string("history ") + format + " " + ledger,
           run_cli({"history", "--ledger", ledger, "--format", format}));
    }
  }
  // The two stores hold the same runs under other ids: each store is asked for its own.
  for (const std::string& ledger : ledgers) {
    const Invocation log = run_cli({"ledger", "export", "--ledger", ledger});
    std::set<std::string> ids;
    for (const std::string& line : lines_of(log.out)) {
      const auto record = nlohmann::json::parse(line);
      if (record["type"] == "run") ids.insert(record["id"].get<std::string>());
    }
    REQUIRE(ids.size() == planted_runs().size());
    for (const std::string& id : ids) {
      keep("show " + id, run_cli({"ledger", "show", id, "--ledger", ledger}));
      for (const char* format : {"md", "html"}) {
        keep(std::string("report ") + format + " " + id,
             run_cli({"report", id, "--ledger", ledger, "--format", format}));
      }
    }
  }
  outputs.emplace_back("NDJSON ledger bytes", read_file(ndjson));
  outputs.emplace_back("SQLite ledger bytes", read_file(sqlite));

  for (const auto& [what, text] : outputs) {
    INFO(what << ":\n" << text);
    CHECK(text.find(k_marker) == std::string::npos);
  }

  // The command lines were recorded, each secret replaced: the search above is not vacuous.
  const std::string bytes = read_file(ndjson);
  for (const char* redacted :
       {R"("-p***","-p","***")", R"("https://***@github.com/o/r")", R"("ci:***@db.internal")",
        R"("--auth","***","--token=","***","--password","--token","***","--api-key=***")",
        R"("true --token ***")", R"("true --token *** PASSWORD=***")",
        R"("host=db password = *** dbname=b")", R"("Authorization: Bearer ***")",
        R"("params":{"token":"***"})", R"("token=***")"}) {
    INFO(redacted);
    CHECK(bytes.find(redacted) != std::string::npos);
  }
}
