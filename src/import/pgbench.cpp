// pgbench's output as written by PostgreSQL 13 to 16 (the lines of pgbench.c's printResults,
// printProgressReport and doLog): https://www.postgresql.org/docs/current/pgbench.html
#include "import/pgbench.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <utility>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "import/json_input.hpp"
#include "model/lines.hpp"
#include "model/user_file.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::import {

namespace {

struct Statement {
  double latency_ms = 0;
  std::int64_t failures = 0;
  std::string command;
};

// What a pgbench run's files say.
struct PgbenchRun {
  std::optional<std::string> script;
  std::optional<std::int64_t> clients, jobs, scale, processed, failed, retried, retries;
  std::optional<std::string> query_mode;
  std::optional<double> tps, latency_avg, latency_stddev, connection_ms;
  std::vector<double> progress_tps, progress_latency;
  std::vector<Statement> statements;
  std::vector<double> logged_latency_ms;  // from -l logs, one per completed transaction
  std::int64_t logged_failed = 0;
  std::vector<std::string> diagnostics;  // pgbench's own `pgbench: …` lines
  // Where the output ends: its `tps = ` line read (pgbench 13's second, excluding connections),
  // the last line of the output read (`its 4th progress line`, `the summary's "latency average"
  // line`) and the file the summary is in.
  bool summary_ended = false;
  bool listed_statements = false;  // the heading of --report-per-command's list was read
  std::string last_read;
  std::string summary_origin;
};

// The statements of pgbench's built-in scripts (pgbench.c's builtin_script): a list of
// --report-per-command shorter than its script's was cut short.
std::optional<std::size_t> builtin_statements(const std::optional<std::string>& script) {
  if (!script) return std::nullopt;
  if (*script == "tpcb-like") return 11;
  if (*script == "simple-update") return 9;
  if (*script == "select-only") return 2;
  return std::nullopt;  // a custom script's commands are not in the output
}

class LineError {
 public:
  LineError(const std::string& origin, std::size_t number) : m_origin(origin), m_number(number) {}
  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(fmt::format("{}: line {}: {}", m_origin, m_number, reason));
  }
  const std::string& origin() const { return m_origin; }

 private:
  const std::string& m_origin;
  std::size_t m_number;
};

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

double to_number(const std::string& text, const LineError& where, const std::string& what) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value))
    where.fail(fmt::format("{}: \"{}\" is not a number", what, text));
  return value;
}

std::int64_t to_integer(const std::string& text, const LineError& where, const std::string& what) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0)
    where.fail(fmt::format("{}: \"{}\" is not a count", what, text));
  return value;
}

// The script's short name: pgbench's -b names for its built-in scripts, else the text as
// pgbench printed it (a custom script's file name).
std::string script_name(const std::string& type) {
  static const std::map<std::string, std::string> builtin = {
      {"<builtin: TPC-B (sort of)>", "tpcb-like"},
      {"<builtin: simple update>", "simple-update"},
      {"<builtin: select only>", "select-only"},
  };
  const auto found = builtin.find(type);
  return found != builtin.end() ? found->second : type;
}

// A -l log line: client_id transaction_no time script_no time_epoch time_us [schedule_lag]
// [retries]; time is in microseconds, or `failed` / `skipped`. Returns false for a line
// that is not one.
bool read_log_line(const std::string& line, const LineError& where, PgbenchRun& run) {
  static const std::regex pattern(
      R"(\d+ \d+ (\d+|failed|skipped|serialization|deadlock|other) \d+ \d+ \d+( -?\d+)?( \d+)?)");
  std::smatch m;
  if (!std::regex_match(line, m, pattern)) return false;
  const std::string time = m[1];
  if (time == "skipped") return true;
  if (!std::isdigit(static_cast<unsigned char>(time[0]))) {
    ++run.logged_failed;
    return true;
  }
  run.logged_latency_ms.push_back(to_number(time, where, "transaction time") / 1000.0);
  return true;
}

// `key: value` and `key = value` lines of the summary.
void read_summary_line(const std::string& key, const std::string& value, const LineError& where,
                       PgbenchRun& run) {
  static const std::regex count_of("(\\d+)(/\\d+)?( \\(.*\\))?");
  static const std::regex ms("([-0-9.e+]+) ms");
  std::smatch m;
  const auto count = [&](std::optional<std::int64_t>& to) {
    if (!std::regex_match(value, m, count_of)) where.fail(key + ": expected a count");
    to = to_integer(m[1], where, key);
  };
  const auto milliseconds = [&](std::optional<double>& to) {
    if (!std::regex_match(value, m, ms)) where.fail(key + ": expected a time in ms");
    to = to_number(m[1], where, key);
  };
  run.last_read = "the summary's \"" + key + "\" line";
  run.summary_origin = where.origin();
  if (key == "transaction type") {
    run.script = script_name(value);
  } else if (key == "scaling factor") {
    count(run.scale);
  } else if (key == "query mode") {
    run.query_mode = value;
  } else if (key == "number of clients") {
    count(run.clients);
  } else if (key == "number of threads") {
    count(run.jobs);
  } else if (key == "number of transactions actually processed") {
    count(run.processed);
  } else if (key == "number of failed transactions") {
    count(run.failed);
  } else if (key == "number of transactions retried") {
    count(run.retried);
  } else if (key == "total number of retries") {
    count(run.retries);
  } else if (key == "latency average") {
    milliseconds(run.latency_avg);
  } else if (key == "latency stddev") {
    milliseconds(run.latency_stddev);
  } else if (key == "initial connection time") {
    milliseconds(run.connection_ms);
  } else if (key == "tps") {
    // "255.278719 (without initial connection time)"; pgbench 13 printed two lines, including
    // and excluding connections establishing: the one without connections is comparable.
    const std::string number = value.substr(0, value.find(' '));
    const double tps = to_number(number, where, key);
    const bool including = value.find("including connections") != std::string::npos;
    if (!run.tps || !including) run.tps = tps;
    run.summary_ended = run.summary_ended || !including;
  } else if (key == "duration" || key == "number of transactions per client" ||
             key == "maximum number of tries" || key == "maximum number of transactions" ||
             key == "latency limit" || key == "rate limit schedule lag" ||
             key.rfind("number of transactions above the", 0) == 0 ||
             key == "number of transactions skipped") {
    // Settings the run was given and rate-limit details: recorded in the command, not here.
  } else if (key.rfind("SQL script", 0) == 0) {
    where.fail("a run of several scripts (-b/-f with weights): import one script's run at a time");
  } else {
    where.fail("not a line pgbench writes: \"" + key + "\"");
  }
}

void read_output_line(const std::string& raw, const LineError& where, bool& in_statements,
                      PgbenchRun& run) {
  static const std::regex progress(
      R"(progress: [0-9.]+ s, ([0-9.]+) tps, lat ([-0-9.na]+) ms stddev ([-0-9.na]+)(, .*)?)");
  static const std::regex statement(R"(\s+([0-9.]+)(\s+(\d+))?(\s+(\d+))?\s+(\S.*))");
  const std::string line = trim(raw);
  std::smatch m;
  if (line.empty()) return;
  if (in_statements && !raw.empty() && (raw[0] == ' ' || raw[0] == '\t')) {
    if (!std::regex_match(raw, m, statement))
      where.fail("a statement line without its latency: \"" + line + "\"");
    Statement s;
    s.latency_ms = to_number(m[1], where, "statement latency");
    if (m[3].matched) s.failures = to_integer(m[3], where, "statement failures");
    s.command = m[6];
    run.statements.push_back(std::move(s));
    run.last_read =
        fmt::format("statement {} ({})", run.statements.size(), run.statements.back().command);
    return;
  }
  in_statements = false;
  if (line.rfind("progress:", 0) == 0) {
    if (!std::regex_match(line, m, progress))
      where.fail("a progress line pgbench does not write: \"" + line + "\"");
    run.progress_tps.push_back(to_number(m[1], where, "progress tps"));
    // A second without a transaction has no latency (pgbench prints 0 or NaN): no sample.
    if (run.progress_tps.back() > 0)
      run.progress_latency.push_back(to_number(m[2], where, "progress latency"));
    run.last_read = "its " + detail::ordinal(run.progress_tps.size()) + " progress line";
    return;
  }
  if (line.rfind("statement latencies in milliseconds", 0) == 0) {
    in_statements = true;
    run.listed_statements = true;
    run.last_read = "the heading of its statements' latencies";
    return;
  }
  if (line.rfind("pgbench: ", 0) == 0) {
    run.diagnostics.push_back(line);
    run.last_read = "its \"" + line + "\" line";
    return;
  }
  if (line.rfind("pgbench (", 0) == 0 || line.rfind("starting vacuum", 0) == 0 ||
      line.rfind("transaction type: ", 0) == 0) {
    run.last_read = "its \"" + line.substr(0, line.find(' ', 9)) + " …\" line";
    if (line.rfind("transaction type: ", 0) == 0)
      read_summary_line("transaction type", line.substr(18), where, run);
    return;
  }
  const std::size_t equals = line.find(" = ");
  const std::size_t colon = line.find(": ");
  const std::size_t split = std::min(equals, colon);
  if (split == std::string::npos) where.fail("not a line pgbench writes: \"" + line + "\"");
  const std::size_t skip = split == equals ? 3 : 2;
  read_summary_line(line.substr(0, split), trim(line.substr(split + skip)), where, run);
}

// What a run's files say, with the output file the run's messages name when its summary does not
// say, and whether the output ends in part of a line.
struct PgbenchFiles {
  PgbenchRun run;
  std::string output_origin;  // the last output (not a -l log) that had a line
  bool cut_mid_line = false;

  // What messages add to where the output ends when it ends in part of a line.
  std::string part_of_a_line() const { return cut_mid_line ? " and part of a line" : ""; }
};

// Reads one file into the run: a -l log when its first line is one, else pgbench's output. Its
// lines are model::Lines': CRLF, blank lines skipped (numbers counting them), and a last line
// without its newline, which in a log is read like any other.
void read_pgbench_file(const PgbenchFile& file, PgbenchFiles& read) {
  detail::require_utf8(file.text, file.origin);
  bool first = true;
  bool in_statements = false;
  bool is_log = false;
  for (const model::TextLine& line : model::Lines(file.text)) {
    const LineError where(file.origin, static_cast<std::size_t>(line.number));
    const std::string text(line.text);
    if (std::exchange(first, false) && read_log_line(trim(text), where, read.run)) {
      is_log = true;
      continue;
    }
    if (is_log) {
      if (!read_log_line(trim(text), where, read.run))
        where.fail("not a line of pgbench's -l log: \"" + trim(text) + "\"");
      continue;
    }
    // An output's last line without its newline is one pgbench was still writing (`tps = 255.27`
    // of `tps = 255.278719`): it is left out and the output is cut short.
    if (!line.terminated) {
      read.cut_mid_line = true;
      break;
    }
    read_output_line(text, where, in_statements, read.run);
  }
  if (!is_log && !first) read.output_origin = file.origin;
}

// Throws when the run has neither summary nor progress lines, and, as `partial` says, when its
// summary ends before its tps line.
void require_pgbench_summary(const PgbenchFiles& read, const std::string& origin, Partial partial) {
  const PgbenchRun& run = read.run;
  const std::string part_of_a_line = read.part_of_a_line();
  if (!run.tps && run.progress_tps.empty()) {
    throw Error(origin +
                ": no pgbench summary (tps = …) or --progress line: give pgbench's output (stdout "
                "and stderr) with its -l logs" +
                (run.last_read.empty() && !read.cut_mid_line
                     ? std::string()
                     : fmt::format(" (it ends after {}{}: {})",
                                   run.last_read.empty() ? "nothing whole" : run.last_read,
                                   part_of_a_line, detail::k_cut_short)));
  }
  // Without its tps line the run's own result is not there: nothing to keep, whatever `partial`.
  if (!run.summary_ended) {
    ImportedResults none;
    detail::cut_short(none, partial, origin,
                      "ends after " + run.last_read + part_of_a_line +
                          ", without pgbench's summary (its \"tps = \" line)",
                      {});
  }
}

// The run's latency: the summary's average and stddev, the progress lines' averages as samples,
// and the -l logs' count, extremes and percentiles. No unit when the files state none of these.
Metric pgbench_latency(const PgbenchRun& run) {
  Metric latency;
  if (!run.progress_latency.empty()) {
    latency = metric_from_samples("ms", Better::lower, run.progress_latency);
  } else if (run.latency_avg) {
    latency = single_value_metric("ms", Better::lower, *run.latency_avg);
  }
  if (run.latency_avg) {
    latency.value = *run.latency_avg;
    latency.summary.mean = *run.latency_avg;
  }
  if (run.latency_stddev) latency.summary.stddev = *run.latency_stddev;
  if (!run.logged_latency_ms.empty()) {
    std::vector<double> sorted = run.logged_latency_ms;
    std::sort(sorted.begin(), sorted.end());
    latency.unit = "ms";
    latency.better = Better::lower;
    Summary& s = latency.summary;
    s.n = static_cast<std::int64_t>(sorted.size());
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = stats::quantile_sorted(sorted, 0.5);
    s.p50 = s.median;
    s.p90 = stats::quantile_sorted(sorted, 0.90);
    s.p95 = stats::quantile_sorted(sorted, 0.95);
    s.p99 = stats::quantile_sorted(sorted, 0.99);
    s.p999 = stats::quantile_sorted(sorted, 0.999);
    if (!run.latency_avg) {
      double sum = 0;
      for (double x : sorted) sum += x;
      s.mean = sum / static_cast<double>(sorted.size());
      latency.value = s.mean;
    }
  }
  return latency;
}

// The run's own result, tps primary.
ResultRecord pgbench_run_result(const PgbenchRun& run, const std::string& bench,
                                const Params& params) {
  ResultRecord r = detail::new_result(bench, params);
  if (!run.progress_tps.empty()) {
    r.metrics["tps"] = metric_from_samples("ops/s", Better::higher, run.progress_tps);
    if (run.tps) r.metrics["tps"].value = *run.tps;  // the whole run's, not the median second's
  } else {
    r.metrics["tps"] = single_value_metric("ops/s", Better::higher, *run.tps);
  }
  r.primary = "tps";
  const Metric latency = pgbench_latency(run);
  if (!latency.unit.empty()) r.metrics["latency"] = latency;
  if (run.connection_ms)
    r.metrics["connection_time"] = single_value_metric("ms", Better::lower, *run.connection_ms);
  if (run.retried)
    r.metrics["retried"] =
        single_value_metric("count", Better::lower, static_cast<double>(*run.retried));
  if (run.retries)
    r.metrics["retries"] =
        single_value_metric("count", Better::lower, static_cast<double>(*run.retries));
  const std::int64_t logged = static_cast<std::int64_t>(run.logged_latency_ms.size());
  r.ops = run.processed.value_or(logged + run.logged_failed);
  r.errors = run.failed.value_or(run.logged_failed);
  return r;
}

// A --report-per-command list cut short: what it lacks, and the statements left out.
std::pair<std::string, std::string> pgbench_missing_statements(
    const PgbenchRun& run, const std::optional<std::size_t>& statements) {
  const std::size_t read = run.statements.size();
  const std::string missing =
      !run.listed_statements ? std::string("the rest of its last line")
      : statements           ? fmt::format("the rest of the {} statements of pgbench's {} script",
                                           *statements, *run.script)
                             : std::string("the rest of its statements' latencies");
  const std::string dropped = !run.listed_statements ? std::string("the line it ends in")
                              : !statements ? fmt::format("any statement after statement {}", read)
                              : read + 1 == *statements
                                  ? fmt::format("statement {}", *statements)
                                  : fmt::format("statements {} to {}", read + 1, *statements);
  return {missing, dropped};
}

}  // namespace

ImportedResults read_pgbench(const std::vector<PgbenchFile>& files, Partial partial) {
  PgbenchFiles read;
  for (const PgbenchFile& file : files) read_pgbench_file(file, read);
  const PgbenchRun& run = read.run;
  const std::string origin = !run.summary_origin.empty() ? run.summary_origin
                             : read.output_origin.empty()
                                 ? (files.empty() ? std::string("pgbench") : files.front().origin)
                                 : read.output_origin;
  require_pgbench_summary(read, origin, partial);
  const std::optional<std::size_t> statements = builtin_statements(run.script);
  // A line cut after the tps line may be a statement's: the list, if any, may be short.
  const bool statements_cut = read.cut_mid_line || (statements && run.listed_statements &&
                                                    run.statements.size() < *statements);
  Params params;
  if (run.clients) params["clients"] = *run.clients;
  if (run.jobs) params["jobs"] = *run.jobs;
  if (run.scale) params["scale"] = *run.scale;
  if (run.query_mode) params["query_mode"] = *run.query_mode;
  const std::string bench = "pgbench/" + run.script.value_or("unknown");
  ImportedResults imported;
  ResultRecord r = pgbench_run_result(run, bench, params);
  const std::int64_t logged = static_cast<std::int64_t>(run.logged_latency_ms.size());
  if (!run.logged_latency_ms.empty() && run.processed && logged != *run.processed) {
    imported.warnings.push_back(fmt::format(
        "{}: the -l logs hold {} completed transactions, the summary {}: a log file may be missing",
        origin, logged, *run.processed));
  }
  const std::int64_t ops = r.ops;
  imported.results.push_back(std::move(r));

  for (std::size_t i = 0; i < run.statements.size(); ++i) {
    Params p = params;
    p["statement"] = static_cast<std::int64_t>(i + 1);
    p["command"] = run.statements[i].command;
    ResultRecord s = detail::new_result(bench + "/statement", p);
    s.metrics["latency"] = single_value_metric("ms", Better::lower, run.statements[i].latency_ms);
    s.primary = "latency";
    s.ops = ops;
    s.errors = run.statements[i].failures;
    imported.results.push_back(std::move(s));
  }
  if (statements_cut) {
    const auto [missing, dropped] = pgbench_missing_statements(run, statements);
    detail::cut_short(
        imported, partial, origin,
        "ends after " + run.last_read + read.part_of_a_line() + ", without " + missing, {dropped});
  }
  for (const std::string& line : run.diagnostics) imported.warnings.push_back(line);
  return imported;
}

ImportedResults import_pgbench(const std::vector<std::filesystem::path>& paths, Partial partial) {
  std::vector<PgbenchFile> files;
  for (const auto& path : paths)
    files.push_back({model::read_input_file(path, k_max_import_bytes, ""), path.string()});
  return read_pgbench(files, partial);
}

}  // namespace benchledger::import
