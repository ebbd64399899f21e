// Credentials kept out of what benchledger records and prints. A run records the command line
// it was started with, and a ledger keeps that for ever, in reports and comparisons posted
// where anyone may read them; so secrets are replaced by "***" before a record is built or
// appended, and messages show a ledger URI or a user's argument only through redact_secrets().
// This is the one rule: every recorder and printer calls it. docs/records.md ("Secrets") states
// it for users.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchledger/record.hpp>

namespace benchledger::model {

// True when a name looks like it holds a secret: ignoring case, leading dashes and a trailing
// ':', it contains "password", "passwd", "passphrase", "secret", "credential" or "apikey", or one
// of its words (split at `_`, `-` and `.`) is "token", "pass", "pwd", "auth" or
// "authorization", or two of them are "api key", "access key" or "private key". `PGPASSWORD`,
// `--token`, `GITHUB_TOKEN`, `--auth`, `sslpassword`, `aws_secret_access_key` and `api-key` are;
// `--tokenizer`, `--tokens`, `max_tokens`, `--author` and `--passes` are not.
bool is_secret_name(std::string_view name);

// Where the secrets in `text` (a shell command, a connection string, one argument) are, as
// [begin, end) byte ranges in order. `text` is read as whitespace-separated words, and a word's
// leading `"`, `'` and `(` are skipped (shell text quotes):
// - `NAME=VALUE` with a secret-looking NAME: VALUE (`password=x`, `--token=x`, `PGPASSWORD=x`);
//   a VALUE opened by a quote runs to its closing quote;
// - the word after a secret-looking flag (`--token X`), after `NAME=` with nothing after the '='
//   (`--token= X`), after a bare secret-looking name and a lone '=' (libpq's `password = X`, and
//   `password =X`), after a header name (`Authorization: X`, `Authorization: Bearer X`); a
//   secret-looking flag in that place (`--password --token X`) is kept and hides the word after
//   it in turn;
// - after a word naming a client whose short option is a password, that option's value, attached
//   or not: `-pX` and `-p X` after mysql, mysqladmin, mysqldump, mysqlslap, mysqlimport,
//   mysqlshow, mysqlcheck, mysqlpump, mysqlbinlog, mariadb and its `mariadb-*` tools, `-p X`
//   after sshpass, `-a X` after redis-cli. Not psql, pgbench or pg_dump, whose -p is the port.
//   The client's words end at `;`, `&&`, `||`, `|`, `&` or `--`;
// - in a URI (`scheme://USER:PASSWORD@host/...`, the user part ending as libpq reads it, at an
//   '@' met before any '/', or the last '@' before the query when the password holds a '/'): the
//   whole user part (`https://***@github.com`), except for schemes whose user part names a login
//   (postgresql, postgres, mysql, mariadb, mongodb, mongodb+srv, redis, rediss, amqp, amqps,
//   ssh, sftp, git+ssh, ssh+git), where the user is kept and only the password is hidden
//   (`postgresql://ci:***@db`); and the value of every query parameter whose name
//   (percent-decoded) is secret-looking (`?password=`, `&access_token=`);
// - outside URIs, the password of `USER:PASSWORD@HOST` (`--dsn=ci:***@db`).
// A bare value with no name before it cannot be told from an ordinary argument and is kept.
std::vector<std::pair<std::size_t, std::size_t>> secret_spans(std::string_view text);

// `text` with every secret_spans() range replaced by "***".
std::string redact_secrets(std::string_view text);

// A command line as it may be recorded: the rules of secret_spans() read across arguments as
// across words (`--token X`, `mysql -p X`, `--password --token X`, an argument after a
// secret-looking flag is hidden whole), and each argument read alone by redact_secrets() (a
// `--prepare` or `sh -c` script, a URI, a connection string).
std::vector<std::string> redact_command(const std::vector<std::string>& argv);

// The record with every string it holds through the rules above: a run's command
// (redact_command()), label, project, git branch, warnings and environment values; a result's
// bench and params (a param whose name is secret-looking gets "***" whatever its value); a note's
// text, author and bench; and every string of the unknown fields kept verbatim (a failure's
// message, an importer's extras), a field whose name is secret-looking getting "***". Ids, times
// and hashes are left alone, and so is the environment's fingerprint (a hash, computed from
// the values as measured). Returns true when anything changed.
bool redact_record(Record& record);
bool redact_record(RunRecord& run);
bool redact_record(ResultRecord& result);

// True when redact_record() would change the record; for a writer that copies only then.
bool holds_secret(const Record& record);

// `text` with %XX escapes decoded (an invalid escape is kept as written).
std::string percent_decoded(std::string_view text);

}  // namespace benchledger::model
