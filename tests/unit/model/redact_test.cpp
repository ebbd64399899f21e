// No credential of a command line or a ledger URI survives redaction, and ordinary arguments
// are left as written.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/redact.hpp"

using namespace benchledger::model;

TEST_CASE("secret-looking names are told from ordinary ones") {
  for (const char* name :
       {"password", "PGPASSWORD", "sslpassword", "--password", "-passwd", "--token", "GITHUB_TOKEN",
        "auth-token", "DB_SECRET", "aws_secret_access_key", "API_KEY", "x-api-key", "apiKey",
        "--pass", "pwd", "AWS_ACCESS_KEY_ID", "private.key", "credentials"}) {
    INFO(name);
    CHECK(is_secret_name(name));
  }
  for (const char* name : {"--tokenizer", "max_tokens", "--passes", "--ledger", "host", "user",
                           "--runs", "key", "sslmode", "PATH", "keyboard"}) {
    INFO(name);
    CHECK_FALSE(is_secret_name(name));
  }
}

TEST_CASE("URIs lose the password of their user part and of secret-looking parameters") {
  CHECK(redact_secrets("postgresql://ci:secret@db/bench") == "postgresql://ci:***@db/bench");
  CHECK(redact_secrets("postgres://ci:p%40ss@db:5432/bench?sslmode=require") ==
        "postgres://ci:***@db:5432/bench?sslmode=require");
  CHECK(redact_secrets("postgresql://db/bench?user=ci&password=secret&sslmode=off") ==
        "postgresql://db/bench?user=ci&password=***&sslmode=off");
  CHECK(redact_secrets("postgresql://ci@db/bench") == "postgresql://ci@db/bench");
  CHECK(redact_secrets("postgresql://db:5432/bench") == "postgresql://db:5432/bench");
  // libpq reads the user part up to an '@' met before any '/': a password may hold '?' or ':'.
  CHECK(redact_secrets("postgresql://ci:se?c:ret@db/bench?sslmode=off") ==
        "postgresql://ci:***@db/bench?sslmode=off");
  CHECK(redact_secrets("postgresql://db/bench?sslpassword=key&pass%77ord=x") ==
        "postgresql://db/bench?sslpassword=***&pass%77ord=***");
  CHECK(redact_secrets("postgresql://db/bench?application_name=a@b") ==
        "postgresql://db/bench?application_name=a@b");
  CHECK(redact_secrets("postgresql://ci:ab/cd+e=@db/bench") == "postgresql://ci:***@db/bench");
  // Any scheme, and a URI inside longer text.
  CHECK(redact_secrets("--ledger=postgresql://ci:secret@db/bench") ==
        "--ledger=postgresql://ci:***@db/bench");
  CHECK(redact_secrets("git clone https://x:ghp_abc@github.com/o/r.git && make") ==
        "git clone https://x:***@github.com/o/r.git && make");
  CHECK(redact_secrets("https://api.example.com/v1?access_token=abc#top") ==
        "https://api.example.com/v1?access_token=***#top");
}

TEST_CASE("NAME=VALUE with a secret-looking name loses its value, quoted or not") {
  CHECK(redact_secrets("host=db user=ci password=secret dbname=bench") ==
        "host=db user=ci password=*** dbname=bench");
  CHECK(redact_secrets("host=db password='a secret with spaces' dbname=bench") ==
        "host=db password=*** dbname=bench");
  CHECK(redact_secrets("PGPASSWORD=secret psql -c 'select 1'") ==
        "PGPASSWORD=*** psql -c 'select 1'");
  CHECK(redact_secrets("API_KEY=abc") == "API_KEY=***");
  CHECK(redact_secrets("--password=abc") == "--password=***");
  CHECK(redact_secrets("\"password=abc host=db\"") == "\"password=*** host=db\"");
  CHECK(redact_secrets("n=10 mode=fast --runs=3") == "n=10 mode=fast --runs=3");
}

TEST_CASE("a command line loses the value after a secret-looking flag, and nothing else") {
  const std::vector<std::string> argv = {"bench-run",   "--ledger=postgresql://ci:secret@db/bench",
                                         "--runs",      "3",
                                         "--",          "curl",
                                         "--token",     "abc",
                                         "-u",          "user",
                                         "--password",  "hunter2",
                                         "--tokenizer", "bert",
                                         "API_KEY=xyz"};
  CHECK(redact_command(argv) ==
        std::vector<std::string>{"bench-run", "--ledger=postgresql://ci:***@db/bench", "--runs",
                                 "3", "--", "curl", "--token", "***", "-u", "user", "--password",
                                 "***", "--tokenizer", "bert", "API_KEY=***"});
}
