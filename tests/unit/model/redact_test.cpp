// No credential of a command line, a connection string, a URI or a record survives redaction, in
// any spelling the rule names, and ordinary arguments are left as written.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "model/redact.hpp"

using namespace benchledger;
using namespace benchledger::model;

namespace {

using Argv = std::vector<std::string>;

}  // namespace

TEST_CASE("secret-looking names are told from ordinary ones") {
  for (const char* name : {"password",
                           "PGPASSWORD",
                           "sslpassword",
                           "--password",
                           "-passwd",
                           "--token",
                           "GITHUB_TOKEN",
                           "auth-token",
                           "DB_SECRET",
                           "aws_secret_access_key",
                           "API_KEY",
                           "x-api-key",
                           "apiKey",
                           "--pass",
                           "pwd",
                           "AWS_ACCESS_KEY_ID",
                           "private.key",
                           "credentials",
                           "--auth",
                           "auth",
                           "Authorization:",
                           "X-Api-Key:",
                           "client_secret",
                           "--passphrase",
                           "Token",
                           "PWD"}) {
    INFO(name);
    CHECK(is_secret_name(name));
  }
  // `--tokens 3` is a count, like max_tokens: a name must hold the word, not begin with it.
  for (const char* name :
       {"--tokenizer", "--tokens", "max_tokens", "--passes", "--ledger", "host", "user", "--runs",
        "key", "sslmode", "PATH", "keyboard", "--author", "oauth", "-p", "port"}) {
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
  CHECK(redact_secrets("mysql://root:pw@db/bench") == "mysql://root:***@db/bench");
  CHECK(redact_secrets("ssh://git@github.com/o/r.git") == "ssh://git@github.com/o/r.git");
  // Any scheme, and a URI inside longer text.
  CHECK(redact_secrets("--ledger=postgresql://ci:secret@db/bench") ==
        "--ledger=postgresql://ci:***@db/bench");
  CHECK(redact_secrets("https://api.example.com/v1?access_token=abc#top") ==
        "https://api.example.com/v1?access_token=***#top");
}

TEST_CASE("a web URI's user part is hidden whole: the token may be the user") {
  CHECK(redact_secrets("https://ghp_T0KEN@github.com/o/r.git") == "https://***@github.com/o/r.git");
  CHECK(redact_secrets("git clone https://x:ghp_abc@github.com/o/r.git && make") ==
        "git clone https://***@github.com/o/r.git && make");
  CHECK(redact_secrets("https://ghp_T0KEN:x-oauth-basic@github.com/o") ==
        "https://***@github.com/o");
  CHECK(redact_secrets("'https://oauth2:glpat-x@gitlab.com/o/r'") ==
        "'https://***@gitlab.com/o/r'");
  CHECK(redact_secrets("https://github.com/o/r") == "https://github.com/o/r");
}

TEST_CASE("USER:PASSWORD@HOST outside a URI loses the password") {
  CHECK(redact_secrets("ci:hunter2@db.internal") == "ci:***@db.internal");
  CHECK(redact_secrets("--dsn=ci:hunter2@db:5432/bench") == "--dsn=ci:***@db:5432/bench");
  CHECK(redact_secrets("scp -r out ci:hunter2@host:/tmp") == "scp -r out ci:***@host:/tmp");
  for (const char* plain : {"git@github.com:o/r.git", "ci@db.internal", "a@b.com",
                            "Intel(R) Xeon(R) CPU @ 2.20GHz", "docker run -p 8080:80 nginx"}) {
    INFO(plain);
    CHECK(redact_secrets(plain) == plain);
  }
}

TEST_CASE("NAME=VALUE with a secret-looking name loses its value, in any case and spelling") {
  CHECK(redact_secrets("host=db user=ci password=secret dbname=bench") ==
        "host=db user=ci password=*** dbname=bench");
  CHECK(redact_secrets("host=db password='a secret with spaces' dbname=bench") ==
        "host=db password=*** dbname=bench");
  CHECK(redact_secrets("PGPASSWORD=secret psql -c 'select 1'") ==
        "PGPASSWORD=*** psql -c 'select 1'");
  for (const char* name : {"password", "PASSWORD", "Token", "secret", "apikey", "api_key",
                           "API-KEY", "passwd", "pwd", "auth", "--token", "--api-key"}) {
    INFO(name);
    CHECK(redact_secrets(std::string(name) + "=s3cr3t") == std::string(name) + "=***");
  }
  CHECK(redact_secrets("\"password=abc host=db\"") == "\"password=*** host=db\"");
  CHECK(redact_secrets("\"password=abc\"") == "\"password=***\"");
  CHECK(redact_secrets("token:s3cr3t") == "token:***");
  // As messages quote a refused argument.
  CHECK(redact_secrets("--param \"password:s3cr3t\": expected name=v1,v2,...") ==
        "--param \"password:***\": expected name=v1,v2,...");
  CHECK(redact_secrets("--pgbench: \"password=s3cr3t\" looks like a database") ==
        "--pgbench: \"password=***\" looks like a database");
  CHECK(redact_secrets("--pgbench \"-T 1 password=s3cr3t\": quotes") ==
        "--pgbench \"-T 1 password=***\": quotes");
  CHECK(redact_secrets("n=10 mode=fast --runs=3 max_tokens=5") ==
        "n=10 mode=fast --runs=3 max_tokens=5");
}

TEST_CASE("libpq's spaces around '=' keep the value a secret") {
  CHECK(redact_secrets("host=db password = s3cr3t dbname=b") == "host=db password = *** dbname=b");
  CHECK(redact_secrets("host=db password =s3cr3t dbname=b") == "host=db password =*** dbname=b");
  CHECK(redact_secrets("host=db password= s3cr3t dbname=b") == "host=db password= *** dbname=b");
  CHECK(redact_secrets("echo password reset") == "echo password reset");
}

TEST_CASE("a secret-looking flag loses the word after it, within one argument") {
  CHECK(redact_secrets("cmd --token s3cr3t --runs 3") == "cmd --token *** --runs 3");
  CHECK(redact_secrets("cmd --auth s3cr3t") == "cmd --auth ***");
  CHECK(redact_secrets("cmd --token= s3cr3t") == "cmd --token= ***");
  CHECK(redact_secrets("cmd --password --token s3cr3t") == "cmd --password --token ***");
  CHECK(redact_secrets("sh -c 'curl --token s3cr3t https://h'") ==
        "sh -c 'curl --token *** https://h'");
  CHECK(redact_secrets("sh -c 'curl --token s3cr3t'") == "sh -c 'curl --token ***'");
  CHECK(redact_secrets("cmd --token 'two words' x") == "cmd --token *** x");
  CHECK(redact_secrets("curl -H 'Authorization: Bearer s3cr3t' https://h") ==
        "curl -H 'Authorization: Bearer ***' https://h");
  CHECK(redact_secrets("curl -H 'X-Api-Key: s3cr3t' https://h") ==
        "curl -H 'X-Api-Key: ***' https://h");
  // A line ends the flag's reach, unless a backslash continues it.
  CHECK(redact_secrets("not expected: --api-key\nRun with --help") ==
        "not expected: --api-key\nRun with --help");
  CHECK(redact_secrets("curl --token \\\n  s3cr3t https://h") ==
        "curl --token \\\n  *** https://h");
  CHECK(redact_secrets("train --tokens 3 --tokenizer bert --author me") ==
        "train --tokens 3 --tokenizer bert --author me");
}

TEST_CASE("-p is a password only after a client that reads it so, never psql's port") {
  CHECK(redact_secrets("mysql -u root -ps3cr3t bench") == "mysql -u root -p*** bench");
  CHECK(redact_secrets("mysql -u root -p s3cr3t") == "mysql -u root -p ***");
  CHECK(redact_secrets("/usr/bin/mysqldump -ps3cr3t db") == "/usr/bin/mysqldump -p*** db");
  CHECK(redact_secrets("mariadb -ps3cr3t") == "mariadb -p***");
  CHECK(redact_secrets("mysqladmin -p s3cr3t ping") == "mysqladmin -p *** ping");
  CHECK(redact_secrets("sshpass -p s3cr3t ssh host") == "sshpass -p *** ssh host");
  CHECK(redact_secrets("redis-cli -a s3cr3t ping") == "redis-cli -a *** ping");
  CHECK(redact_secrets("sh -c 'mysql -ps3cr3t -e \"select 1\"'") ==
        "sh -c 'mysql -p*** -e \"select 1\"'");
  CHECK(redact_secrets("psql -h db -p 5432 -U ci") == "psql -h db -p 5432 -U ci");
  CHECK(redact_secrets("pgbench -p 5432 -T 10") == "pgbench -p 5432 -T 10");
  // A ';' stuck to a value may be the password's own last character: it goes with the value.
  CHECK(redact_secrets("mysql -ps3cr3t; psql -p 5432") == "mysql -p*** psql -p 5432");
  CHECK(redact_secrets("mysql -ps3cr3t ; psql -p 5432") == "mysql -p*** ; psql -p 5432");
  CHECK(redact_secrets("mysql -ps3cr3t && psql -p5432") == "mysql -p*** && psql -p5432");
}

TEST_CASE("a command line loses its secrets across arguments and within each") {
  const Argv argv = {"bench-run",   "--ledger=postgresql://ci:secret@db/bench",
                     "--runs",      "3",
                     "--",          "curl",
                     "--token",     "abc",
                     "-u",          "user",
                     "--password",  "hunter2",
                     "--tokenizer", "bert",
                     "API_KEY=xyz"};
  CHECK(redact_command(argv) == Argv{"bench-run", "--ledger=postgresql://ci:***@db/bench", "--runs",
                                     "3", "--", "curl", "--token", "***", "-u", "user",
                                     "--password", "***", "--tokenizer", "bert", "API_KEY=***"});
  CHECK(redact_command({"x", "--auth", "s3"}) == Argv{"x", "--auth", "***"});
  CHECK(redact_command({"x", "--token=", "s3"}) == Argv{"x", "--token=", "***"});
  CHECK(redact_command({"x", "--password", "--token", "s3"}) ==
        Argv{"x", "--password", "--token", "***"});
  CHECK(redact_command({"x", "--token", "two words"}) == Argv{"x", "--token", "***"});
  CHECK(redact_command({"mysql", "-ps3", "-e", "select 1"}) ==
        Argv{"mysql", "-p***", "-e", "select 1"});
  CHECK(redact_command({"run", "--", "mysql", "-p", "s3"}) ==
        Argv{"run", "--", "mysql", "-p", "***"});
  CHECK(redact_command({"psql", "-p", "5432", "-h", "db"}) ==
        Argv{"psql", "-p", "5432", "-h", "db"});
  CHECK(redact_command({"run", "--shell", "--", "cmd --token s3"}) ==
        Argv{"run", "--shell", "--", "cmd --token ***"});
  CHECK(redact_command({"sh", "-c", "curl --token s3 https://h"}) ==
        Argv{"sh", "-c", "curl --token *** https://h"});
  CHECK(redact_command({"run", "--prepare", "PGPASSWORD=s3 psql -c 'select 1'", "--cleanup",
                        "mysql -ps3 -e 'drop table t'"}) ==
        Argv{"run", "--prepare", "PGPASSWORD=*** psql -c 'select 1'", "--cleanup",
             "mysql -p*** -e 'drop table t'"});
  CHECK(redact_command({"git", "clone", "https://s3@github.com/o/r"}) ==
        Argv{"git", "clone", "https://***@github.com/o/r"});
  CHECK(redact_command({"x", "ci:s3@db"}) == Argv{"x", "ci:***@db"});
  CHECK(redact_command({"x", "--tokens", "3", "--author", "me"}) ==
        Argv{"x", "--tokens", "3", "--author", "me"});
}

TEST_CASE("redaction is idempotent: a redacted text is left as it is") {
  for (const char* text :
       {"mysql -ps3 && psql -p 5432", "https://s3@github.com", "cmd --token s3 --password --auth x",
        "password = s3 host=db", "curl -H 'Authorization: Bearer s3'", "ci:s3@db"}) {
    INFO(text);
    const std::string once = redact_secrets(text);
    CHECK(once.find("s3") == std::string::npos);
    CHECK(redact_secrets(once) == once);
  }
}

TEST_CASE("a record loses the secrets of every string it holds") {
  RunRecord run;
  run.project = "p";
  run.command = {"benchledger", "run", "--", "curl", "--token", "s3cr3t"};
  run.env.host = "ci:s3cr3t@host";
  run.env.runtimes.postgres_server = "16.1 password=s3cr3t";
  run.warnings = {"prepare ran mysql -ps3cr3t"};
  Record record = run;
  CHECK(holds_secret(record));
  CHECK(redact_record(record));
  const RunRecord& redacted = std::get<RunRecord>(record);
  CHECK(redacted.command == Argv{"benchledger", "run", "--", "curl", "--token", "***"});
  CHECK(redacted.env.host == "ci:***@host");
  CHECK(redacted.env.runtimes.postgres_server == "16.1 password=***");
  CHECK(redacted.warnings == Argv{"prepare ran mysql -p***"});
  CHECK_FALSE(holds_secret(record));
  CHECK_FALSE(redact_record(record));

  ResultRecord result;
  result.bench = "curl --token= s3cr3t";
  result.params = {{"token", std::string("s3cr3t")},
                   {"pin", std::int64_t{1234}},
                   {"api_key", std::int64_t{1234}},
                   {"dsn", std::string("postgresql://ci:s3cr3t@db/b")},
                   {"mode", std::string("fast")}};
  result.header.extra["failure"] = {{"kind", "error"}, {"message", "exited: password=s3cr3t"}};
  result.header.extra["secret"] = "s3cr3t";
  CHECK(redact_record(result));
  CHECK(result.bench == "curl --token= ***");
  CHECK(std::get<std::string>(result.params.at("token")) == "***");
  CHECK(std::get<std::string>(result.params.at("api_key")) == "***");
  CHECK(std::get<std::int64_t>(result.params.at("pin")) == 1234);
  CHECK(std::get<std::string>(result.params.at("dsn")) == "postgresql://ci:***@db/b");
  CHECK(std::get<std::string>(result.params.at("mode")) == "fast");
  CHECK(result.header.extra["failure"]["message"] == "exited: password=***");
  CHECK(result.header.extra["secret"] == "***");

  NoteRecord note;
  note.text = "rotated; old one was --token s3cr3t";
  note.author = "ci";
  Record held = note;
  CHECK(redact_record(held));
  CHECK(std::get<NoteRecord>(held).text == "rotated; old one was --token ***");

  ResultRecord plain;
  plain.bench = "sqlite/insert";
  plain.params = {{"rows", std::int64_t{2000}}, {"journal", std::string("wal")}};
  CHECK_FALSE(holds_secret(Record{plain}));
}

TEST_CASE("secret spans are in order, apart and inside the text, for any text") {
  // Words the rules react to, and the characters between them, in random orders.
  const std::vector<std::string> pieces = {"--token",
                                           "--password",
                                           "password",
                                           "=",
                                           "=x",
                                           "-p",
                                           "-px",
                                           "mysql",
                                           ";",
                                           "&&",
                                           "\\",
                                           "\n",
                                           " ",
                                           "  \n ",
                                           "'",
                                           "\"",
                                           "https://",
                                           "u:p@h",
                                           "@",
                                           ":",
                                           "/",
                                           "?token=",
                                           "Authorization:",
                                           "Bearer",
                                           "x",
                                           "--token=",
                                           "(",
                                           ")",
                                           "postgresql://",
                                           "a b"};
  std::mt19937 rng(20261127);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int count = static_cast<int>(rng() % 12);
    for (int k = 0; k < count; ++k) text += pieces[rng() % pieces.size()];
    const auto spans = secret_spans(text);
    std::size_t last = 0;
    for (const auto& [begin, end] : spans) {
      INFO(text);
      REQUIRE(begin >= last);
      REQUIRE(begin <= end);
      REQUIRE(end <= text.size());
      last = end;
    }
  }
}
