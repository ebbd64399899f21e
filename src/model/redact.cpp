// Credentials out of recorded and printed text (see redact.hpp for the rule).
#include "model/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

namespace benchledger::model {

namespace {

constexpr std::string_view k_hidden = "***";

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool is_name_char(char c) {
  return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

bool is_quote(char c) {
  return c == '"' || c == '\'';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// A flag such as `--token` or `-password`: dashes, then a name, no '=' and no value.
bool is_flag(std::string_view word) {
  return word.size() > 1 && word.front() == '-' && word != "--" &&
         std::all_of(word.begin(), word.end(), is_name_char);
}

bool is_secret_flag(std::string_view word) {
  return is_flag(word) && is_secret_name(word);
}

// The short option that takes a password in the clients that have one. psql, pgbench and
// pg_dump are not here on purpose: their -p is the server's port.
char password_option(std::string_view program) {
  struct Client {
    std::string_view program;
    char option;
  };
  static constexpr std::array<Client, 19> k_clients = {{
      {"mysql", 'p'},         {"mysqladmin", 'p'},     {"mysqldump", 'p'},
      {"mysqlslap", 'p'},     {"mysqlimport", 'p'},    {"mysqlshow", 'p'},
      {"mysqlcheck", 'p'},    {"mysqlpump", 'p'},      {"mysqlbinlog", 'p'},
      {"mariadb", 'p'},       {"mariadb-admin", 'p'},  {"mariadb-dump", 'p'},
      {"mariadb-slap", 'p'},  {"mariadb-import", 'p'}, {"mariadb-show", 'p'},
      {"mariadb-check", 'p'}, {"mariadb-binlog", 'p'}, {"sshpass", 'p'},
      {"redis-cli", 'a'},
  }};
  const std::size_t slash = program.rfind('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  for (const Client& client : k_clients) {
    if (client.program == program) return client.option;
  }
  return 0;
}

// A word that ends one command of a shell line, and with it a client's options.
bool ends_command(std::string_view word) {
  if (word == "--") return true;
  return !word.empty() && (word.back() == ';' || word.back() == '|' || word.back() == '&');
}

// Schemes whose user part names a login, not a credential: only its password is hidden.
bool user_names_login(std::string_view scheme) {
  static constexpr std::array<std::string_view, 14> k_login_schemes = {
      "postgresql", "postgres", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis",
      "rediss",     "amqp",     "amqps", "ssh",     "sftp",    "git+ssh",     "ssh+git"};
  return std::find(k_login_schemes.begin(), k_login_schemes.end(), lower(scheme)) !=
         k_login_schemes.end();
}

// The secrets of the URI in `word` whose "://" is at `separator`.
void uri_spans(std::string_view word, std::size_t separator, Spans& spans) {
  std::size_t scheme = separator;
  while (scheme > 0 && (is_alnum(word[scheme - 1]) || word[scheme - 1] == '+' ||
                        word[scheme - 1] == '-' || word[scheme - 1] == '.')) {
    --scheme;
  }
  const std::size_t start = separator + 3;
  const std::size_t end = word.size();
  std::size_t at = start;
  while (at < end && word[at] != '@' && word[at] != '/') ++at;
  if (at == end || word[at] != '@') {
    // Not a user part libpq would read, but a password with a '/' in it (base64) is still a
    // password: an '@' before the parameters ends the user part all the same. Hiding a little
    // too much is harmless.
    const std::size_t query = std::min(word.find('?', start), end);
    at = query == start ? std::string_view::npos : word.rfind('@', query - 1);
    if (at == std::string_view::npos || at < start) at = end;
  }
  std::size_t rest = start;
  if (at < end) {
    if (user_names_login(word.substr(scheme, separator - scheme))) {
      const std::size_t colon = word.find(':', start);
      if (colon < at) spans.emplace_back(colon + 1, at);
    } else if (at > start) {
      // `https://TOKEN@github.com` and `https://TOKEN:x-oauth-basic@github.com`: the token may
      // be the user as well as the password.
      spans.emplace_back(start, at);
    }
    rest = at + 1;
  }
  for (std::size_t key = word.find('?', rest); key != std::string_view::npos && key < end;) {
    ++key;
    const std::size_t stop = std::min({word.find('&', key), word.find('#', key), end});
    const std::size_t equals = word.find('=', key);
    if (equals < stop && is_secret_name(percent_decoded(word.substr(key, equals - key)))) {
      spans.emplace_back(equals + 1, stop);
    }
    key = stop < end && word[stop] == '&' ? stop : std::string_view::npos;
  }
}

// The password of `USER:PASSWORD@HOST` in a word that holds no URI.
void user_password_spans(std::string_view word, std::size_t from, Spans& spans) {
  const std::size_t at = word.rfind('@');
  if (at == std::string_view::npos || at + 1 >= word.size() ||
      !(is_alnum(word[at + 1]) || word[at + 1] == '[')) {
    return;
  }
  const std::size_t colon = word.find(':', from);
  if (colon >= at || colon + 1 == at) return;
  std::size_t user = colon;
  while (user > from &&
         (is_name_char(word[user - 1]) || word[user - 1] == '%' || word[user - 1] == '+')) {
    --user;
  }
  if (user < colon) spans.emplace_back(colon + 1, at);
}

// What one word of a command line is, to the rules: the start of a secret that runs to the
// word's end (`value_from`), or secret ranges within it.
struct WordVerdict {
  std::optional<std::size_t> value_from;
  Spans spans;
};

// The rules read word by word, in order: a flag's value is the next word, a client's options
// follow its name.
class SecretScanner {
 public:
  WordVerdict next(std::string_view word) {
    WordVerdict verdict = classify(word);
    // `mysql -pX; psql -p 5432`: the client's options end with its command.
    if (ends_command(word)) m_password_option = 0;
    return verdict;
  }

  // Whether the next word is a secret whole; the caller that hides it says so with took_value().
  bool expects_value() const { return m_value_next; }
  void took_value() {
    m_value_next = false;
    m_after_header = false;
    m_equals_next = false;
  }
  // A line ends a shell command, and a message's sentence: `--token` at the end of one line does
  // not make the next line's first word its value.
  void line_ended() {
    took_value();
    m_password_option = 0;
  }

 private:
  WordVerdict classify(std::string_view word) {
    std::size_t core = 0;
    while (core < word.size() && (is_quote(word[core]) || word[core] == '(')) ++core;
    const std::string_view body = word.substr(core);
    const bool equals_next = std::exchange(m_equals_next, false);
    const bool after_header = std::exchange(m_after_header, false);
    if (m_value_next) {
      // `--password --token X`: psql's --password takes no value, and the flag after it does.
      // `--token \` and a line break: the value is on the next line.
      if (is_secret_flag(body) || body == "=" || body == "\\") return {};
      if (after_header && is_auth_scheme(body)) {
        m_after_header = true;
        return {};
      }
      m_value_next = false;
      return {!body.empty() && body.front() == '=' ? core + 1 : 0, {}};
    }
    if (equals_next && !body.empty() && body.front() == '=') {
      if (body.size() > 1) return {core + 1, {}};
      m_value_next = true;
      return {};
    }

    std::size_t equals = core;
    while (equals < word.size() && is_name_char(word[equals])) ++equals;
    const std::string_view name = word.substr(core, equals - core);
    if (!name.empty() && equals < word.size() && (word[equals] == '=' || word[equals] == ':') &&
        is_secret_name(name)) {
      if (equals + 1 < word.size()) {
        // `password=X`, and `password:X` unless it is a URI's scheme.
        if (word[equals] == '=' || word.substr(equals + 1, 2) != "//") return {equals + 1, {}};
      } else {
        // `--token= X`, libpq's `password= X`, a header's `Authorization: X`.
        m_value_next = true;
        m_after_header = word[equals] == ':';
        return {};
      }
    }
    if (is_secret_flag(body)) {
      m_value_next = true;
      return {};
    }
    if (equals == word.size() && !name.empty() && name.front() != '-' && is_secret_name(name)) {
      m_equals_next = true;  // libpq's `password = X` and `password =X`
      return {};
    }
    if (m_password_option != 0 && body.size() >= 2 && body[0] == '-' &&
        body[1] == m_password_option) {
      if (body.size() > 2) return {core + 2, {}};
      m_value_next = true;
      return {};
    }
    if (const char option = password_option(body); option != 0) m_password_option = option;

    WordVerdict verdict;
    if (const std::size_t separator = word.find("://", core); separator != std::string_view::npos) {
      uri_spans(word, separator, verdict.spans);
    } else {
      user_password_spans(word, core, verdict.spans);
    }
    return verdict;
  }

  static bool is_auth_scheme(std::string_view word) {
    const std::string scheme = lower(word);
    return scheme == "bearer" || scheme == "basic" || scheme == "token" || scheme == "digest";
  }

  bool m_value_next = false;    // the next word is a secret (after `--token`, `--token=`, `-p`)
  bool m_equals_next = false;   // a bare secret-looking name: `= X` or `=X` may follow
  bool m_after_header = false;  // after `Authorization:`, a scheme (`Bearer`) comes first
  char m_password_option = 0;   // a client's short option that takes a password
};

// The end of a value that starts at `value` in `text`, in the word that ends at `word_end`.
std::size_t value_end(std::string_view text, std::size_t value, std::size_t word_end) {
  if (value < text.size() && is_quote(text[value])) {
    // A quoted value (libpq's keyword strings, the shell) may hold spaces.
    const char quote = text[value];
    std::size_t end = value + 1;
    while (end < text.size() && text[end] != quote) end += text[end] == '\\' ? 2 : 1;
    end = std::min(end + 1, text.size());
    while (end < text.size() && !is_space(text[end])) ++end;
    return end;
  }
  // A quote that closes text opened before the value (`sh -c 'cmd --token X'`, a message's
  // `"password=X":`) stays, with what follows it.
  std::size_t end = word_end;
  while (end > value && std::string_view(":,;)").find(text[end - 1]) != std::string_view::npos)
    --end;
  if (end > value && is_quote(text[end - 1]) &&
      std::count(text.begin() + static_cast<std::ptrdiff_t>(value),
                 text.begin() + static_cast<std::ptrdiff_t>(end), text[end - 1]) %
              2 ==
          1) {
    return end - 1;
  }
  return word_end;
}

bool has_space(std::string_view text) {
  return std::any_of(text.begin(), text.end(), is_space);
}

}  // namespace

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool is_secret_name(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  if (!name.empty() && name.back() == ':') name.remove_suffix(1);
  const std::string text = lower(name);
  for (const char* part : {"password", "passwd", "passphrase", "secret", "credential", "apikey"}) {
    if (text.find(part) != std::string::npos) return true;
  }
  std::vector<std::string_view> words;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t stop = std::min(rest.find_first_of("_-."), rest.size());
    if (stop > 0) words.push_back(rest.substr(0, stop));
    rest.remove_prefix(std::min(stop + 1, rest.size()));
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "token" || words[i] == "pass" || words[i] == "pwd" || words[i] == "auth" ||
        words[i] == "authorization") {
      return true;
    }
    if (i + 1 < words.size() && words[i + 1] == "key" &&
        (words[i] == "api" || words[i] == "access" || words[i] == "private")) {
      return true;
    }
  }
  return false;
}

std::vector<std::pair<std::size_t, std::size_t>> secret_spans(std::string_view text) {
  Spans spans;
  SecretScanner scanner;
  std::size_t at = 0;
  bool continued = false;  // the last word was a `\` that joins the next line to this one
  while (at < text.size()) {
    bool new_line = false;
    for (; at < text.size() && is_space(text[at]); ++at) {
      if (text[at] == '\n') new_line = true;
    }
    if (new_line && !continued) scanner.line_ended();
    std::size_t word_end = at;
    while (word_end < text.size() && !is_space(text[word_end])) ++word_end;
    if (at == word_end) break;
    const std::string_view word = text.substr(at, word_end - at);
    continued = word == "\\";
    const WordVerdict verdict = scanner.next(word);
    if (verdict.value_from) {
      const std::size_t value = at + *verdict.value_from;
      const std::size_t end = value_end(text, value, word_end);
      if (end > value) spans.emplace_back(value, end);
      at = std::max(end, word_end);
      continue;
    }
    for (const auto& [begin, end] : verdict.spans) spans.emplace_back(at + begin, at + end);
    at = word_end;
  }
  return spans;
}

std::string redact_secrets(std::string_view text) {
  std::string out(text);
  const Spans spans = secret_spans(text);
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    out.replace(it->first, it->second - it->first, k_hidden);
  }
  return out;
}

std::vector<std::string> redact_command(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  SecretScanner scanner;
  for (const std::string& arg : argv) {
    if (has_space(arg)) {
      // A script or a quoted value: its own words are read alone, and it is one word here.
      if (scanner.expects_value()) {
        out.emplace_back(k_hidden);
        scanner.took_value();
      } else {
        out.push_back(redact_secrets(arg));
      }
      continue;
    }
    const WordVerdict verdict = scanner.next(arg);
    if (verdict.value_from) {
      out.push_back(arg.substr(0, *verdict.value_from) + std::string(k_hidden));
    } else {
      out.push_back(redact_secrets(arg));
    }
  }
  return out;
}

namespace {

// Walks every string of a record that may hold a secret, for redact_record() (which changes
// them) and holds_secret() (which only looks): `policy` is given each in turn. `R` is the record
// type, const or not.
template <class Policy>
void walk_optional(auto& value, Policy& policy) {
  if (value) policy.text(*value);
}

template <class R, class Policy>
void walk_run(R& run, Policy& policy) {
  policy.json(run.header.extra);
  walk_optional(run.label, policy);
  policy.text(run.project);
  walk_optional(run.git.branch, policy);
  for (auto& warning : run.warnings) policy.text(warning);
  policy.command(run.command);
  policy.text(run.source);
  auto& env = run.env;
  for (auto* field : {&env.host,
                      &env.virtualization,
                      &env.cpu.model,
                      &env.cpu.vendor,
                      &env.cpu.arch,
                      &env.cpu.governor,
                      &env.os.name,
                      &env.os.version,
                      &env.os.kernel,
                      &env.container.kind,
                      &env.container.docker_version,
                      &env.clock.source,
                      &env.runtimes.compiler,
                      &env.runtimes.build_type,
                      &env.runtimes.node,
                      &env.runtimes.python,
                      &env.runtimes.postgres_client,
                      &env.runtimes.postgres_server,
                      &env.runtimes.benchledger,
                      &env.runtimes.java}) {
    walk_optional(*field, policy);
  }
  if (env.postgres) {
    for (auto* field :
         {&env.postgres->shared_buffers, &env.postgres->synchronous_commit, &env.postgres->fsync,
          &env.postgres->max_connections, &env.postgres->wal_level, &env.postgres->work_mem}) {
      walk_optional(*field, policy);
    }
  }
}

template <class R, class Policy>
void walk_result(R& result, Policy& policy) {
  policy.json(result.header.extra);
  policy.text(result.bench);
  for (auto& [name, value] : result.params) policy.param(name, value);
}

template <class R, class Policy>
void walk_note(R& note, Policy& policy) {
  policy.json(note.header.extra);
  walk_optional(note.bench, policy);
  policy.text(note.text);
  policy.text(note.author);
}

template <class R, class Policy>
void walk(R& record, Policy& policy) {
  std::visit(
      [&policy](auto& held) {
        using Held = std::remove_const_t<std::remove_reference_t<decltype(held)>>;
        if constexpr (std::is_same_v<Held, RunRecord>) {
          walk_run(held, policy);
        } else if constexpr (std::is_same_v<Held, ResultRecord>) {
          walk_result(held, policy);
        } else {
          walk_note(held, policy);
        }
      },
      record);
}

// Changes each string to its redacted form.
struct Redactor {
  bool changed = false;

  void text(std::string& value) {
    std::string redacted = redact_secrets(value);
    if (redacted != value) {
      value = std::move(redacted);
      changed = true;
    }
  }
  void command(std::vector<std::string>& argv) {
    std::vector<std::string> redacted = redact_command(argv);
    if (redacted != argv) {
      argv = std::move(redacted);
      changed = true;
    }
  }
  void param(const std::string& name, ParamValue& value) {
    if (is_secret_name(name)) {
      if (const auto* held = std::get_if<std::string>(&value);
          held == nullptr || *held != k_hidden) {
        value = std::string(k_hidden);
        changed = true;
      }
    } else if (auto* held = std::get_if<std::string>(&value)) {
      text(*held);
    }
  }
  void json(nlohmann::json& value) {
    if (value.is_string()) {
      text(value.get_ref<std::string&>());
    } else if (value.is_array()) {
      for (auto& item : value) json(item);
    } else if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (is_secret_name(it.key()) && (it->is_string() || it->is_number())) {
          if (!(it->is_string() && it->get_ref<const std::string&>() == k_hidden)) {
            *it = std::string(k_hidden);
            changed = true;
          }
        } else {
          json(*it);
        }
      }
    }
  }
};

// Only looks: found is true when a Redactor would change something.
struct Finder {
  bool found = false;

  void text(const std::string& value) { found = found || redact_secrets(value) != value; }
  void command(const std::vector<std::string>& argv) {
    found = found || redact_command(argv) != argv;
  }
  void param(const std::string& name, const ParamValue& value) {
    if (found) return;
    ParamValue copy = value;
    Redactor redactor;
    redactor.param(name, copy);
    found = redactor.changed;
  }
  void json(const nlohmann::json& value) {
    if (found || value.is_null() || value.is_boolean() || value.is_number()) return;
    if (value.is_object() && value.empty()) return;
    nlohmann::json copy = value;
    Redactor redactor;
    redactor.json(copy);
    found = redactor.changed;
  }
};

}  // namespace

bool redact_record(Record& record) {
  Redactor redactor;
  walk(record, redactor);
  return redactor.changed;
}

bool redact_record(RunRecord& run) {
  Redactor redactor;
  walk_run(run, redactor);
  return redactor.changed;
}

bool redact_record(ResultRecord& result) {
  Redactor redactor;
  walk_result(result, redactor);
  return redactor.changed;
}

bool holds_secret(const Record& record) {
  Finder finder;
  walk(record, finder);
  return finder.found;
}

}  // namespace benchledger::model
