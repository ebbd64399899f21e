// Credentials kept out of what benchledger records and prints. A run records the command line
// it was started with, and a ledger keeps that for ever, in reports and comparisons posted
// where anyone may read them; so secrets are replaced by "***" before a run record is built,
// and messages show a ledger URI only through redact_secrets(). docs/records.md ("Secrets")
// states the rule.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchledger::model {

// True when a name looks like it holds a secret: ignoring case and leading dashes, it contains
// "password", "passwd", "secret", "credential" or "apikey", or one of its words (split at
// `_`, `-` and `.`) is "token", "pass" or "pwd", or two of them are "api key", "access key" or
// "private key". `PGPASSWORD`, `--token`, `GITHUB_TOKEN`, `sslpassword`, `aws_secret_access_key`
// and `api-key` are; `--tokenizer`, `max_tokens` and `--passes` are not.
bool is_secret_name(std::string_view name);

// Where the secrets in `text` are, as [begin, end) byte ranges in order:
// - the password of a URI's user part (`scheme://user:PASSWORD@host`; as libpq reads it, the
//   user part ends at an '@' met before any '/', but one with a '/' in it is hidden too);
// - the value of a URI query parameter whose name (percent-decoded) is secret-looking
//   (`?password=`, `&sslpassword=`, `&access_token=`);
// - outside URIs, the value of every whitespace-separated `NAME=VALUE` whose NAME is
//   secret-looking (`password=x` in a keyword connection string, `API_KEY=x` before a shell
//   command, `--token=x`); a value opened with a quote runs to its closing quote.
std::vector<std::pair<std::size_t, std::size_t>> secret_spans(std::string_view text);

// `text` with every secret_spans() range replaced by "***".
std::string redact_secrets(std::string_view text);

// A command line as it may be recorded: each argument through redact_secrets(), and the
// argument after a secret-looking flag given without a value (`--token X`, `-password X`)
// replaced by "***" whole.
std::vector<std::string> redact_command(const std::vector<std::string>& argv);

// `text` with %XX escapes decoded (an invalid escape is kept as written).
std::string percent_decoded(std::string_view text);

}  // namespace benchledger::model
