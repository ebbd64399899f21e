// `benchledger ledger`: import, export, verify, log, show and note (docs/ledger.md).
// Tables go to stdout, warnings and errors to stderr; a broken chain exits 1.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "cli/number_flag.hpp"
#include "cli/subcommand.hpp"
#include "ledger/artifacts.hpp"
#include "model/redact.hpp"
#include "report/format.hpp"
#include "report/text_table.hpp"

namespace benchledger::cli {

namespace {

struct LedgerOptions {
  std::optional<std::string> ledger;
  std::vector<std::string> files;
  std::optional<std::string> run;
  std::optional<std::string> head;
  std::optional<std::string> since;
  std::string selector;
  std::size_t limit = 0;
  std::string target, kind, text;
  std::optional<std::string> author, bench;
  std::string role;
};

std::unique_ptr<ledger::Store> open(const LedgerOptions& options) {
  return ledger::open_store(options.ledger ? *options.ledger : ledger::default_ledger_uri());
}

void print_warnings(const ledger::Store& store) {
  for (const auto& warning : store.warnings()) {
    std::cerr << "benchledger: warning: " << warning << '\n';
  }
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::cout << report::TextTable().render(rows);
}

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : separator) + word;
  return out;
}

int run_import(const LedgerOptions& options) {
  // Read twice, line by line (Store::import): memory does not grow with the files.
  const ledger::ImportFiles files(options.files);
  const auto store = open(options);
  ledger::AppendResult result;
  try {
    result = store->import(files);
  } catch (const ledger::ConflictError& e) {
    throw Error(fmt::format("{}: {} (nothing was imported)", files.where(e.index()), e.what()));
  }
  print_warnings(*store);
  std::cout << fmt::format(
      "imported {} into {}, skipped {} already there; head {}\n",
      fmt::format("{} {}", result.appended, result.appended == 1 ? "record" : "records"),
      store->uri(), result.skipped, result.head);
  return 0;
}

int run_export(const LedgerOptions& options) {
  const auto store = open(options);
  if (options.run) {
    for (const auto& line : ledger::export_run(*store, ledger::parse_run_selector(*options.run))) {
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fputc('\n', stdout);
    }
  } else {
    // A write that failed stops the scan; main reports it (cli/standard_output.hpp).
    store->scan_bytes([](std::int64_t, std::string_view bytes) {
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
      std::fputc('\n', stdout);
      return std::ferror(stdout) == 0;
    });
  }
  print_warnings(*store);
  return 0;
}

void check_hash_flag(const char* flag, const std::optional<std::string>& hash) {
  if (!hash) return;
  const bool hex =
      hash->size() == 64 && hash->find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) throw Error(fmt::format("{} {}: expected 64 lower-case hex characters", flag, *hash));
}

int run_verify(const LedgerOptions& options) {
  check_hash_flag("--head", options.head);
  check_hash_flag("--since", options.since);
  const auto store = open(options);
  ledger::VerifyReport report =
      options.since ? store->verify_since(*options.since) : store->verify(options.head);
  // The artifacts the records name (a result's profile): each there, its bytes its hash. Read
  // only from a ledger whose records verified, whose breaks are what to fix first.
  if (report.ok) {
    for (std::string& problem :
         ledger::check_artifacts(*store, report.since_position.value_or(0))) {
      report.ok = false;
      ++report.break_count;
      if (report.breaks.size() < ledger::VerifyReport::k_max_breaks)
        report.breaks.push_back({0, {}, std::move(problem)});
    }
  }
  for (const auto& warning : report.warnings) {
    std::cerr << "benchledger: warning: " << warning << '\n';
  }
  const std::string zeros(64, '0');
  if (options.head && *options.head == zeros && report.records > 0) {
    std::cerr << "benchledger: warning: --head is 64 zeros, the head of the empty ledger, which "
                 "every ledger passes: it checks nothing; save the head this command prints and "
                 "pass that next time\n";
  }
  const auto records = [](std::int64_t n) {
    return fmt::format("{} {}", n, n == 1 ? "record" : "records");
  };
  // --since counts the records after the saved head, which are all it checked.
  const std::string checked = options.since && report.since_position
                                  ? fmt::format("{} after the saved head (position {})",
                                                records(report.records), *report.since_position)
                                  : records(report.records);
  if (!report.ok) {
    for (const auto& broken : report.breaks) std::cerr << "benchledger: " << broken.problem << '\n';
    const auto unlisted = report.break_count - static_cast<std::int64_t>(report.breaks.size());
    if (unlisted > 0) {
      std::cerr << fmt::format("benchledger: and {} more breaks, not listed\n", unlisted);
    }
    if (options.since && !report.since_position) {
      std::cerr << fmt::format("benchledger: {}: broken: the saved head is not in it\n",
                               store->uri());
    } else {
      std::cerr << fmt::format("benchledger: {}: broken: {} {} in {} (head {})\n", store->uri(),
                               report.break_count, report.break_count == 1 ? "break" : "breaks",
                               checked, report.head);
    }
    return 1;
  }
  std::cout << fmt::format("ok: {}: {}, head {}\n", store->uri(), checked, report.head);
  return 0;
}

int run_log(const LedgerOptions& options) {
  const auto store = open(options);
  const auto runs = store->log(options.limit);
  print_warnings(*store);
  std::vector<std::vector<std::string>> rows = {
      {"ID", "TIME", "LABEL", "COMMIT", "HOST", "RESULTS"}};
  for (const auto& listing : runs) {
    const RunRecord& run = listing.run;
    rows.push_back({run.header.id, run.header.time, run.label.value_or("-"),
                    report::format_commit(run.git), run.env.host.value_or("-"),
                    std::to_string(listing.results)});
  }
  print_table(rows);
  return 0;
}

// A result as a row of `ledger show`.
std::vector<std::string> result_row(const ResultRecord& result) {
  std::vector<std::string> params;
  for (const auto& [key, value] : result.params) params.push_back(key + "=" + to_string(value));
  const Metric& metric = result.metrics.at(result.primary);
  return {result.bench,
          params.empty() ? "-" : joined(params, " "),
          result.primary,
          report::format_quantity(metric.value, metric.unit),
          std::to_string(metric.summary.n),
          std::to_string(result.ops),
          std::to_string(result.errors),
          result.header.id};
}

int run_show(const LedgerOptions& options) {
  const auto store = open(options);
  const auto selector = ledger::parse_run_selector(options.selector);
  const auto run = store->find_run(selector);
  if (!run) throw Error(fmt::format("no run matches \"{}\" in {}", options.selector, store->uri()));

  // A run may hold millions of results: they are read twice, once for the column widths (and the
  // notes about them) and once to print, rather than held.
  std::vector<NoteRecord> notes = store->notes();
  std::unordered_map<std::string, std::vector<std::size_t>> notes_by_target;
  for (std::size_t i = 0; i < notes.size(); ++i) notes_by_target[notes[i].target].push_back(i);
  std::vector<bool> about(notes.size(), false);
  const auto mark_notes_about = [&](const std::string& id) {
    if (const auto it = notes_by_target.find(id); it != notes_by_target.end()) {
      for (const std::size_t i : it->second) about[i] = true;
    }
  };
  mark_notes_about(run->header.id);
  const std::vector<std::string> header = {"BENCH", "PARAMS", "METRIC", "VALUE",
                                           "N",     "OPS",    "ERRORS", "ID"};
  // Two passes over the results, so that a run of millions is never held at once.
  report::TextTable columns;
  columns.fit(header);
  std::size_t results = 0;
  store->scan_results(run->header.id, [&](ResultRecord&& result) {
    columns.fit(result_row(result));
    mark_notes_about(result.header.id);
    ++results;
    return true;
  });
  print_warnings(*store);

  std::string git = report::format_commit(run->git);  // `+dirty` marks uncommitted changes
  if (run->git.branch) git += " (" + *run->git.branch + ")";
  if (run->git.dirty && !*run->git.dirty) git += " clean";
  print_table({{"run", run->header.id},
               {"time", run->header.time},
               {"label", run->label.value_or("-")},
               {"project", run->project},
               {"git", git},
               {"host", run->env.host.value_or("-")},
               {"fingerprint", run->env.fingerprint},
               {"source", run->source},
               // Redacted again: a run recorded before credentials were kept out may hold one.
               {"command", joined(model::redact_command(run->command), " ")},
               {"results", std::to_string(results)}});
  for (const auto& warning : run->warnings) std::cout << "warning  " << warning << '\n';

  if (results > 0) {
    std::cout << '\n';
    std::cout << columns.line(header);
    std::size_t printed = 0;
    store->scan_results(run->header.id, [&](ResultRecord&& result) {
      std::cout << columns.line(result_row(result));
      return ++printed < results;  // results appended since the first pass are not counted
    });
  }
  std::vector<std::vector<std::string>> rows = {
      {"NOTE", "KIND", "TARGET", "BENCH", "AUTHOR", "TEXT"}};
  for (std::size_t i = 0; i < notes.size(); ++i) {
    if (!about[i]) continue;
    const NoteRecord& note = notes[i];
    rows.push_back({note.header.id, std::string(to_string(note.kind)), note.target,
                    note.bench.value_or("-"), note.author, note.text});
  }
  if (rows.size() > 1) {
    std::cout << '\n';
    print_table(rows);
  }
  return 0;
}

NoteKind parse_note_kind(const std::string& kind) {
  if (const auto parsed = note_kind_from(kind)) return *parsed;
  throw Error("--kind " + kind + ": expected accept-regression, invalidate, comment or remove");
}

std::string default_author() {
  for (const char* name : {"BENCHLEDGER_AUTHOR", "USER", "LOGNAME"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  if (const passwd* user = ::getpwuid(::getuid()); user != nullptr && user->pw_name[0] != '\0') {
    return user->pw_name;
  }
  throw Error("no author: give --author (or set BENCHLEDGER_AUTHOR)");
}

// A note whose --bench names no benchmark of its target would cover nothing (a typo): refused.
void check_note_bench(const ledger::Store& store, const NoteRecord& note, const Record& target) {
  if (!note.bench) return;
  std::set<std::string> benches;
  if (const auto* target_result = std::get_if<ResultRecord>(&target)) {
    benches.insert(target_result->bench);
  } else {
    for (const ResultRecord& result : store.results_of(note.target)) benches.insert(result.bench);
  }
  if (benches.contains(*note.bench)) return;
  throw Error(
      fmt::format("--bench {}: {} {} has no such benchmark ({}); nothing was appended", *note.bench,
                  std::holds_alternative<ResultRecord>(target) ? "result" : "run", note.target,
                  benches.empty() ? std::string("it has no results")
                                  : fmt::format("it has {}", fmt::join(benches, ", "))));
}

int run_note(const LedgerOptions& options) {
  NoteRecord note;
  note.kind = parse_note_kind(options.kind);
  if (options.text.find_first_not_of(" \t\n\r") == std::string::npos) {
    throw Error("--text is empty: a note says why it was written (nothing was appended)");
  }
  note.text = options.text;
  note.author = options.author ? *options.author : default_author();
  note.bench = options.bench;
  const auto store = open(options);
  std::optional<Record> target;
  if (is_ulid(options.target)) {
    auto found = store->find_record(options.target);
    if (!found || std::holds_alternative<NoteRecord>(found->record)) {
      throw Error(fmt::format("note target {}: no run or result with this id in {}", options.target,
                              store->uri()));
    }
    target = std::move(found->record);
  } else {
    auto run = store->find_run(ledger::parse_run_selector(options.target));
    if (!run) {
      throw Error(
          fmt::format("note target \"{}\": no run matches it in {}", options.target, store->uri()));
    }
    target = std::move(*run);
  }
  note.target = header_of(*target).id;
  check_note_bench(*store, note, *target);
  note.header.id = new_ulid();
  note.header.time = now_rfc3339();
  const auto result = store->append({note});
  print_warnings(*store);
  std::cout << fmt::format("appended note {} on {}; head {}\n", note.header.id, note.target,
                           result.head);
  return 0;
}

int run_grant(const LedgerOptions& options) {
  const std::string uri = options.ledger ? *options.ledger : ledger::default_ledger_uri();
  ledger::grant_append_only(uri, options.role);
  std::cout << fmt::format("{} may now read and append to {}, and nothing else\n", options.role,
                           ledger::open_store(uri)->uri());
  return 0;
}

void add_ledger_option(CLI::App& sub, LedgerOptions& options) {
  sub.add_option("--ledger", options.ledger,
                 "ledger URI: path.ndjson, ndjson:PATH, sqlite:PATH or postgresql://… (default: "
                 "BENCHLEDGER_LEDGER, the config file, else ledger/ledger.ndjson)");
}

}  // namespace

Runner add_ledger_command(CLI::App& app) {
  auto options = std::make_shared<LedgerOptions>();
  CLI::App* ledger = app.add_subcommand("ledger", "verify, list, import and export ledgers");
  ledger->require_subcommand(1);

  CLI::App* import = ledger->add_subcommand(
      "import", "append the records of NDJSON files (idempotent by id; a bad record refuses all)");
  import->add_option("FILE", options->files, "NDJSON files of benchledger/1 records")->required();
  add_ledger_option(*import, *options);

  CLI::App* export_ = ledger->add_subcommand("export", "write the ledger as NDJSON on stdout");
  export_->add_option("--run", options->run,
                      "only this run (id, label, label~N, git:COMMIT, latest~N), its results and "
                      "notes, re-chained as a ledger of its own");
  add_ledger_option(*export_, *options);

  CLI::App* verify =
      ledger->add_subcommand("verify", "recompute the hash chain; exit 1 naming every bad record");
  CLI::Option* head =
      verify->add_option("--head", options->head,
                         "a head hash saved earlier: fail unless that record is still present");
  verify
      ->add_option("--since", options->since,
                   "a head hash saved earlier: check only the records appended after it, "
                   "failing unless that record is still present")
      ->excludes(head);
  add_ledger_option(*verify, *options);

  CLI::App* log = ledger->add_subcommand("log", "list runs, newest first");
  log->add_option("-n,--limit", options->limit, "at most this many runs (default: all)")
      ->check(in_range(model::k_log_limit_range));
  add_ledger_option(*log, *options);

  CLI::App* show = ledger->add_subcommand("show", "one run and its results as a table");
  show->add_option("SELECTOR", options->selector,
                   "run id, label, label~N, git:COMMIT, latest or latest~N")
      ->required();
  add_ledger_option(*show, *options);

  CLI::App* note = ledger->add_subcommand("note", "append a note about a run or result");
  note->add_option("TARGET", options->target, "a run or result id, or a run selector")->required();
  note->add_option("--kind", options->kind, "accept-regression, invalidate, comment or remove")
      ->required();
  note->add_option("--text", options->text, "what the note says")->required();
  note->add_option("--author", options->author, "who says it (default: $USER)");
  note->add_option("--bench", options->bench, "the benchmark the note is about");
  add_ledger_option(*note, *options);

  CLI::App* grant = ledger->add_subcommand(
      "grant", "PostgreSQL: let a role (created if missing) read and append, and nothing else");
  grant->add_option("ROLE", options->role, "the role CI connects as")->required();
  add_ledger_option(*grant, *options);

  return [options, import, export_, verify, log, show, note, grant]() -> int {
    if (import->parsed()) return run_import(*options);
    if (export_->parsed()) return run_export(*options);
    if (verify->parsed()) return run_verify(*options);
    if (log->parsed()) return run_log(*options);
    if (show->parsed()) return run_show(*options);
    if (note->parsed()) return run_note(*options);
    if (grant->parsed()) return run_grant(*options);
    return 2;
  };
}

}  // namespace benchledger::cli
