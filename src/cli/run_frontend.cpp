// `benchledger run` and BENCHLEDGER_MAIN: plan the cases, measure them with the engine,
// append the run and its results as one batch, print the progress line and the summary.
#include "cli/run_frontend.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <benchledger/config.hpp>
#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "cli/number_flag.hpp"
#include "cli/run_pgbench.hpp"
#include "cli/run_postgres.hpp"
#include "cli/standard_output.hpp"
#include "engine/command.hpp"
#include "engine/native.hpp"
#include "engine/records.hpp"
#include "env/env.hpp"
#include "import/import.hpp"
#include "model/failure.hpp"
#include "model/record_lines.hpp"
#include "model/redact.hpp"
#include "report/format.hpp"
#include "suites/suites.hpp"

namespace benchledger::cli {

void add_run_options(CLI::App& app, RunOptions& o, bool native) {
  app.add_option("--ledger", o.ledger,
                 "ledger URI (default: BENCHLEDGER_LEDGER, the config file, ledger/ledger.ndjson)");
  app.add_option("--label", o.label,
                 "label of the run: baseline, current, or [A-Za-z0-9._-]{1,64}");
  app.add_flag("--baseline", o.baseline, "the same as --label baseline");
  app.add_option("--filter", o.filter,
                 "run only the cases whose name (with params) matches this regex");
  // Separate flags, so that an error names the one given; both set the same count.
  CLI::Option* repetitions =
      app.add_option("--repetitions", o.repetitions,
                     "measured repetitions per native case (default 10); --runs for commands")
          ->check(in_range(model::k_runs_range));
  app.add_option("--runs", o.repetitions,
                 "measured runs per command (default 10); the same as --repetitions")
      ->check(in_range(model::k_runs_range))
      ->excludes(repetitions);
  app.add_option("--warmup", o.warmup,
                 "unmeasured repetitions (native) or runs (commands) first; default 1")
      ->check(in_range(model::k_warmup_range));
  app.add_option("--min-time", o.min_time,
                 "minimum seconds per repetition of a native case (default 0.01)")
      ->check(in_range(model::k_min_time_range));
  app.add_option("--timeout", o.timeout,
                 "seconds before a native case (default 600) or one run of a command is killed and "
                 "counted as failed")
      ->check(in_range(model::k_timeout_range));
  app.add_option("--format", o.format,
                 "table (a summary on stdout) or json (the records appended, NDJSON)")
      ->check(CLI::IsMember({"table", "json"}));
  app.add_flag("--quiet,-q", o.quiet, "no progress line and no warnings on stderr");
  app.add_flag("--dry-run", o.dry_run, "measure and print, append nothing");
  app.add_flag("--list", o.list, "list the cases that would run, measure nothing");
  app.add_flag("--no-fork", o.no_fork,
               "run native cases in this process (a crash ends the run; no timeout)");
  app.add_option("--param", o.params,
                 "name=v1,v2,...: the values of a param (commands: fills {name}; native: replaces "
                 "a declared param's values)")
      ->take_all()
      ->expected(1);
  app.add_option("--pg", o.pg,
                 "PostgreSQL server to measure and record (libpq DSN or URI; default: "
                 "BENCHLEDGER_PG, the config file's \"pg\"); its password is never recorded");
  if (native) return;
  app.add_option("--suite", o.suites, "run a bundled suite: executors, sqlite, pipeline, postgres")
      ->take_all()
      ->expected(1);
  app.add_option("--import", o.imports,
                 "FORMAT FILE: record another harness's output (google-benchmark, hyperfine, "
                 "pgbench: its output and -l logs, one --import each)")
      ->take_all();
  app.add_option("--pgbench", o.pgbench,
                 "\"ARGS\": run the installed pgbench against --pg for each --param clients=, "
                 "jobs=, scale= (initialising each scale once)");
  app.add_option("--name", o.name,
                 "the benchmark name of a command (default: the command as written)");
  app.add_option("--prepare", o.prepare, "shell command run before every run of a command");
  app.add_option("--cleanup", o.cleanup,
                 "shell command run after the last run of each param combination");
  app.add_flag("--shell", o.shell,
               "run the command through /bin/sh -c instead of executing it directly");
  app.add_flag("--show-output", o.show_output,
               "let the command's stdout and stderr through (default: /dev/null)");
  app.add_option("command", o.command, "command to measure, after --: CMD ARGS...");
  app.positionals_at_end();
}

namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- formatting

std::string format_seconds(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", std::max(seconds, 1.0));
  const auto minutes = static_cast<int>(seconds / 60);
  return fmt::format("{} min {:02.0f} s", minutes, seconds - minutes * 60);
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t w = report::display_width(text);
  if (w >= width) return text;
  return right ? std::string(width - w, ' ') + text : text + std::string(width - w, ' ');
}

// ---------------------------------------------------------------- progress

// The first `count` code points of UTF-8 text.
std::string first_code_points(const std::string& text, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t n = 0; n < count && at < text.size(); ++n) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
  }
  return text.substr(0, at);
}

// The last `count` code points of UTF-8 text.
std::string last_code_points(const std::string& text, std::size_t count) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n < count && at > 0; ++n) {
    --at;
    while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  }
  return text.substr(at);
}

// head + name + tail in at most `width` columns. The case's place, its phase and the time
// left matter most while a run goes on, so the name gives way first: it loses its middle
// (the bench name at its start and the last params stay); only a terminal too narrow for
// head and tail alone cuts the line's end.
std::string fit_line(const std::string& head, const std::string& name, const std::string& tail,
                     std::size_t width) {
  const std::size_t fixed = report::display_width(head) + report::display_width(tail);
  const std::size_t name_width = report::display_width(name);
  if (fixed + name_width <= width) return head + name + tail;
  constexpr std::size_t k_shortest_name = 9;  // four code points each side of the ellipsis
  if (fixed + k_shortest_name <= width) {
    const std::size_t keep = width - fixed - 1;  // one column for the ellipsis
    const std::size_t front = (keep + 1) / 2;
    return head + first_code_points(name, front) + "…" + last_code_points(name, keep - front) +
           tail;
  }
  return first_code_points(head + name + tail, width > 1 ? width - 1 : 0) + "…";
}

// One status line on stderr, rewritten in place; only on a terminal and without --quiet.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : m_enabled(enabled) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void start_case(std::size_t index, std::size_t total, std::string name) {
    m_index = index;
    m_total = total;
    m_name = std::move(name);
    m_case_start = Clock::now();
    m_phase = engine::CasePhase{"starting", 0, 0, 0};
    draw(true);
  }
  void phase(const engine::CasePhase& p) {
    m_phase = p;
    draw(false);
  }
  void finish_case(double seconds) {
    m_finished_seconds += seconds;
    ++m_finished;
  }
  void clear() {
    if (m_enabled && m_drawn) {
      std::cerr << "\r\033[K" << std::flush;
      m_drawn = false;
    }
  }

 private:
  void draw(bool force) {
    if (!m_enabled) return;
    const auto now = Clock::now();
    if (!force && now - m_last_draw < std::chrono::milliseconds(100)) return;
    m_last_draw = now;
    std::string phase = m_phase.phase;
    if (m_phase.total > 0) phase += fmt::format(" {}/{}", m_phase.done, m_phase.total);
    const std::string head = fmt::format("[{}/{}] ", m_index + 1, m_total);
    std::string tail = " · " + phase;
    if (const auto left = seconds_left(now)) tail += " · about " + format_seconds(*left) + " left";
    winsize size{};
    std::size_t columns = 100;
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) columns = size.ws_col;
    const std::string text = fit_line(head, m_name, tail, columns - 1);
    std::cerr << "\r\033[K" << text << std::flush;
    m_drawn = true;
  }

  std::optional<double> seconds_left(Clock::time_point now) const {
    const double in_case = std::chrono::duration<double>(now - m_case_start).count();
    const std::optional<double> mean =
        m_finished > 0 ? std::optional<double>(m_finished_seconds / static_cast<double>(m_finished))
                       : std::nullopt;
    std::optional<double> current;
    if (m_phase.phase == "measuring" && m_phase.total > 0 && m_phase.last_repetition_s > 0) {
      current = (m_phase.total - m_phase.done) * m_phase.last_repetition_s;
    } else if (mean) {
      current = std::max(*mean - in_case, 0.0);
    }
    const std::size_t after = m_total - m_index - 1;
    if (!current || (after > 0 && !mean)) return std::nullopt;
    return *current + static_cast<double>(after) * mean.value_or(0);
  }

  const bool m_enabled;
  bool m_drawn = false;
  std::size_t m_index = 0, m_total = 0, m_finished = 0;
  double m_finished_seconds = 0;
  std::string m_name;
  engine::CasePhase m_phase;
  Clock::time_point m_case_start{}, m_last_draw{};
};

// ---------------------------------------------------------------- planning

struct Job {
  enum class Kind { native, command, binary } kind = Kind::native;
  engine::NativeCase native;
  engine::CommandCase command;
  engine::CommandSettings command_settings;
  std::string binary;
  std::string display;
};

engine::ParamOverrides parse_params(const std::vector<std::string>& texts) {
  engine::ParamOverrides overrides;
  for (const std::string& text : texts) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw Error("--param \"" + text + "\": expected name=v1,v2,...");
    }
    const std::string name = text.substr(0, equals);
    std::vector<std::string> values;
    std::stringstream rest(text.substr(equals + 1));
    std::string value;
    while (std::getline(rest, value, ',')) values.push_back(value);
    if (values.empty() ||
        std::any_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); })) {
      throw Error("--param " + name + ": empty value in \"" + text + "\"");
    }
    for (const auto& [existing, unused] : overrides) {
      if (existing == name) throw Error("--param " + name + " is given twice");
    }
    overrides.emplace_back(name, values);
  }
  return overrides;
}

bool valid_label(const std::string& label) {
  static const std::regex pattern("[A-Za-z0-9._-]{1,64}");
  return std::regex_match(label, pattern);
}

std::vector<std::string> forwarded_flags(const RunOptions& o) {
  std::vector<std::string> flags;
  if (o.repetitions) flags.insert(flags.end(), {"--repetitions", std::to_string(*o.repetitions)});
  if (o.warmup) flags.insert(flags.end(), {"--warmup", std::to_string(*o.warmup)});
  if (o.min_time) flags.insert(flags.end(), {"--min-time", fmt::format("{}", *o.min_time)});
  if (o.timeout) flags.insert(flags.end(), {"--timeout", fmt::format("{}", *o.timeout)});
  if (o.filter) flags.insert(flags.end(), {"--filter", *o.filter});
  if (o.no_fork) flags.emplace_back("--no-fork");
  return flags;
}

// ---------------------------------------------------------------- summary

std::string failure_text(const ResultRecord& r) {
  const auto failure = model::failure_of(r);
  if (!failure) return "FAILED";
  return "FAILED (" + failure->kind + "): " + failure->message;
}

void print_summary(const std::vector<ResultRecord>& results) {
  // Show only the params that vary within each benchmark; constant ones are in the ledger.
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;
  for (const auto& r : results) {
    for (const auto& [key, value] : r.params) seen[r.bench][key].insert(to_string(value));
  }
  struct Row {
    std::vector<std::string> cells;
    std::string failure;
  };
  const std::vector<std::string> header = {"case", "median", "±",      "throughput",
                                           "p50",  "p99",    "errors", "memory"};
  std::vector<Row> rows;
  for (const auto& r : results) {
    Row row;
    std::string name = r.bench;
    for (const auto& [key, value] : r.params) {
      if (seen[r.bench][key].size() > 1) name += " " + key + "=" + to_string(value);
    }
    row.cells.push_back(name);
    if (model::failure_of(r)) {
      row.failure = failure_text(r);
      rows.push_back(row);
      continue;
    }
    const Metric& primary = r.metrics.at(r.primary);
    row.cells.push_back(report::format_quantity(primary.value, primary.unit));
    const double cv =
        primary.summary.mean != 0 ? 100.0 * primary.summary.stddev / primary.summary.mean : 0;
    row.cells.push_back(primary.samples && primary.samples->size() > 1 ? fmt::format("{:.1f}%", cv)
                                                                       : "");
    const auto items = r.metrics.find("items");
    const auto throughput = r.metrics.find("throughput");
    if (items != r.metrics.end())
      row.cells.push_back(report::format_quantity(items->second.value, items->second.unit));
    else if (throughput != r.metrics.end())
      row.cells.push_back(report::format_quantity(throughput->second.value, "ops/s"));
    else
      row.cells.emplace_back("");
    const auto latency = r.metrics.find("latency");
    if (latency != r.metrics.end() && latency->second.summary.p50) {
      row.cells.push_back(
          report::format_quantity(*latency->second.summary.p50, latency->second.unit));
      row.cells.push_back(
          report::format_quantity(*latency->second.summary.p99, latency->second.unit));
    } else {
      row.cells.insert(row.cells.end(), {"", ""});
    }
    row.cells.push_back(r.errors == 0 ? "0" : fmt::format("{} of {}", r.errors, r.ops));
    const auto rss =
        r.metrics.count("peak_rss") != 0 ? r.metrics.find("peak_rss") : r.metrics.find("max_rss");
    row.cells.push_back(rss != r.metrics.end() ? report::format_quantity(rss->second.value, "bytes")
                                               : "");
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) widths[c] = report::display_width(header[c]);
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < row.cells.size(); ++c)
      widths[c] = std::max(widths[c], report::display_width(row.cells[c]));
  }
  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += pad(cells[c], widths[c], c > 0);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << '\n';
  };
  print_row(header);
  bool spread = false;
  for (const Row& row : rows) {
    if (!row.failure.empty()) {
      std::cout << pad(row.cells[0], widths[0], false) << "  " << row.failure << '\n';
    } else {
      print_row(row.cells);
      spread = spread || !row.cells[2].empty();
    }
  }
  if (spread) std::cout << "±: the samples' coefficient of variation (stddev / mean)\n";
}

// The stored bytes of the records just appended, for --format json (their `prev` is the
// store's). One pass over the store.
std::vector<std::string> stored_bytes(const ledger::Store& store,
                                      const std::vector<std::string>& ids) {
  std::map<std::string, std::string> found;
  const std::set<std::string> wanted(ids.begin(), ids.end());
  store.scan_bytes([&](std::int64_t, std::string_view bytes) {
    const std::size_t at = bytes.find("\"id\":\"");
    if (at != std::string_view::npos && at + 6 + 26 <= bytes.size()) {
      const std::string id(bytes.substr(at + 6, 26));
      if (wanted.count(id) != 0) found[id] = std::string(bytes);
    }
    return true;
  });
  std::vector<std::string> lines;
  for (const std::string& id : ids) {
    const auto it = found.find(id);
    if (it == found.end())
      throw Error("record " + id + " was appended but cannot be read back from " + store.uri());
    lines.push_back(it->second);
  }
  return lines;
}

}  // namespace

int execute_run(const RunOptions& o, const RunContext& context) {
  // ---- validate
  std::optional<std::string> label = o.label;
  if (o.baseline) {
    if (label && *label != "baseline")
      throw Error("--baseline and --label " + *label + " contradict each other");
    label = "baseline";
  }
  if (label && !valid_label(*label)) {
    throw Error("--label \"" + *label + "\": expected 1 to 64 of A-Z a-z 0-9 . _ -");
  }
  std::optional<std::regex> filter;
  if (o.filter) {
    try {
      filter = std::regex(*o.filter);
    } catch (const std::regex_error& e) {
      throw Error("--filter \"" + *o.filter + "\": not a regular expression: " + e.what());
    }
  }
  const engine::ParamOverrides overrides = parse_params(o.params);
  engine::RunSettings settings;
  settings.repetitions = o.repetitions;
  settings.warmup = o.warmup;
  settings.min_time = o.min_time;
  settings.timeout = o.timeout;
  if (!o.command.empty() && !o.suites.empty() && !overrides.empty()) {
    throw Error("--param applies to the command or to the suites, not both: run them separately");
  }

  // ---- plan
  const Config config = load_default_config();
  std::vector<std::unique_ptr<Registry>> registries;
  std::vector<Job> jobs;
  std::vector<std::string> suite_names = o.suites;
  std::vector<engine::CommandSpec> command_specs;
  std::vector<engine::CommandSettings> command_settings;
  std::vector<std::string> binaries;
  const bool nothing_named = o.suites.empty() && o.command.empty() && o.imports.empty() &&
                             !o.pgbench && context.native_registry == nullptr;
  if (o.pgbench && (!o.suites.empty() || !o.command.empty() || !o.imports.empty()))
    throw Error("--pgbench records pgbench's runs as a run of its own: run it separately");
  if (nothing_named) {
    suite_names = config.suites;
    binaries = config.binaries;
    for (const CommandSpec& spec : config.commands) {
      engine::CommandSpec s;
      s.name = spec.name;
      s.command = spec.command;
      command_specs.push_back(s);
      engine::CommandSettings cs;
      cs.runs = o.repetitions.value_or(spec.runs.value_or(engine::k_default_repetitions));
      cs.warmup = o.warmup.value_or(spec.warmup.value_or(engine::k_default_warmup));
      cs.timeout = o.timeout;
      command_settings.push_back(cs);
    }
    if (suite_names.empty() && binaries.empty() && command_specs.empty()) {
      throw Error(
          "nothing to run: give --suite NAME, a command after --, --import FORMAT FILE, or a "
          "\"run\" "
          "section in benchledger.json");
    }
  }
  if (context.native_registry != nullptr) {
    for (auto& c :
         engine::expand_cases(*context.native_registry, "", settings, overrides, filter)) {
      Job job;
      job.kind = Job::Kind::native;
      job.display = c.display_name();
      job.native = std::move(c);
      jobs.push_back(std::move(job));
    }
  }
  {
    auto combined = std::make_unique<Registry>();
    std::set<std::string> added;
    for (const std::string& name : suite_names) {
      const suites::Suite* suite = suites::find_suite(name);
      if (suite == nullptr) {
        std::string known;
        for (const auto& s : suites::bundled_suites())
          known += (known.empty() ? "" : ", ") + s.name;
        throw Error("--suite " + name + ": no such suite (bundled: " + known + ")");
      }
      if (added.insert(name).second) suite->define(*combined);
    }
    if (!combined->benchmarks().empty()) {
      for (auto& c :
           engine::expand_cases(*combined, "", settings,
                                o.command.empty() ? overrides : engine::ParamOverrides{}, filter)) {
        Job job;
        job.kind = Job::Kind::native;
        job.display = c.display_name();
        job.native = std::move(c);
        jobs.push_back(std::move(job));
      }
    }
    registries.push_back(std::move(combined));
  }
  if (!o.command.empty()) {
    engine::CommandSpec spec;
    spec.name = o.name;
    spec.command = o.command;
    spec.shell = o.shell;
    spec.prepare = o.prepare;
    spec.cleanup = o.cleanup;
    command_specs.insert(command_specs.begin(), spec);
    engine::CommandSettings cs;
    cs.runs = o.repetitions.value_or(engine::k_default_repetitions);
    cs.warmup = o.warmup.value_or(engine::k_default_warmup);
    cs.timeout = o.timeout;
    command_settings.insert(command_settings.begin(), cs);
  } else if (o.name || o.prepare || o.cleanup || o.shell) {
    throw Error("--name, --prepare, --cleanup and --shell apply to a command given after --");
  }
  for (std::size_t i = 0; i < command_specs.size(); ++i) {
    engine::ParamOverrides params =
        i == 0 && !o.command.empty() ? overrides : engine::ParamOverrides{};
    if (nothing_named) {
      for (const auto& [name, values] : config.commands[i].params)
        params.emplace_back(name, values);
    }
    for (auto& c : engine::expand_command(command_specs[i], params, filter)) {
      Job job;
      job.kind = Job::Kind::command;
      job.display = c.display_name();
      job.command = std::move(c);
      job.command_settings = command_settings[i];
      job.command_settings.show_output = o.show_output;
      jobs.push_back(std::move(job));
    }
  }
  for (const std::string& binary : binaries) {
    Job job;
    job.kind = Job::Kind::binary;
    job.binary = binary;
    job.display = binary;
    jobs.push_back(std::move(job));
  }
  const bool overrides_taken = context.native_registry != nullptr || !o.command.empty() ||
                               o.pgbench || (!suite_names.empty() && o.command.empty());
  if (!overrides.empty() && !overrides_taken)
    throw Error("--param: nothing in this run takes params");
  if (!o.imports.empty() && !jobs.empty()) {
    throw Error(
        "--import records another harness's results as a run of its own; it cannot be combined "
        "with "
        "measuring");
  }

  if (o.list) {
    for (const Job& job : jobs) std::cout << job.display << '\n';
    return 0;
  }
  if (jobs.empty() && o.imports.empty() && !o.pgbench)
    throw Error("no case matches --filter " + o.filter.value_or(""));

  // ---- the run record
  RunRecord run;
  run.header.id = new_ulid();
  run.header.time = now_rfc3339();
  run.header.prev = std::string(k_zero_hash);
  run.label = label;
  const std::filesystem::path root = project_root(std::filesystem::current_path());
  run.project = config.project.value_or(root.filename().string());
  const env::GitCapture git = env::capture_git_with_notes(root);
  run.git = git.git;
  const bool needs_server =
      std::find(suite_names.begin(), suite_names.end(), "postgres") != suite_names.end() ||
      o.pgbench.has_value();
  const RunServer server = resolve_run_server(o.pg, config, needs_server);
  env::CaptureOptions capture_options;
  capture_options.compiler = context.compiler;
  capture_options.build_type = context.build_type;
  capture_options.postgres_dsn = server.dsn;
  const env::Capture captured = env::capture_with_notes(capture_options);
  run.env = captured.env;
  if (server.dsn && !run.env.runtimes.postgres_server) {
    std::string reason;
    for (const std::string& note : captured.notes) {
      if (note.rfind("postgres: ", 0) == 0) reason = ": " + model::redact_secrets(note.substr(10));
    }
    throw Error("--pg " + model::redact_secrets(*server.dsn) + ": cannot ask the server" + reason +
                " (nothing was run)");
  }
  run.warnings = env::stability_warnings(run.env);
  run.command = model::redact_command(context.argv);  // a ledger keeps it for ever
  const bool show_diagnostics = !o.quiet;
  if (show_diagnostics) {
    for (const std::string& note : git.notes) std::cerr << "note: " << note << '\n';
    for (const std::string& note : captured.notes) std::cerr << "note: " << note << '\n';
  }

  // ---- measure
  std::vector<ResultRecord> results;
  bool any_failed = false;
  std::string source;
  if (o.pgbench) {
    source = "pgbench";
    ProgressLine progress(!o.quiet && ::isatty(STDERR_FILENO) == 1);
    import::ImportedResults ran = run_pgbench_scan(
        *server.dsn, *o.pgbench, overrides,
        [&](std::size_t index, std::size_t total, const std::string& name) {
          progress.start_case(index, total, name);
  });
  for (ResultRecord& r : ran.results) {
    r.run = run.header.id;
    results.push_back(std::move(r));
  }
  run.warnings.insert(run.warnings.end(), ran.warnings.begin(), ran.warnings.end());
}
else if (!o.imports.empty() && o.imports.front().first == "pgbench") {
  source = "pgbench";
  import::ImportedResults imported = import_pgbench_files(o.imports);
  for (ResultRecord& r : imported.results) {
    r.run = run.header.id;
    results.push_back(std::move(r));
  }
  run.warnings.insert(run.warnings.end(), imported.warnings.begin(), imported.warnings.end());
}
else if (!o.imports.empty()) {
  source = o.imports.front().first;
  for (const auto& [format, file] : o.imports) {
    if (format != source)
      throw Error("one run imports one format: --import " + source + " and --import " + format);
    import::ImportedResults imported = import::import_file(format, file);
    for (ResultRecord& r : imported.results) {
      r.run = run.header.id;
      results.push_back(std::move(r));
    }
    run.warnings.insert(run.warnings.end(), imported.warnings.begin(), imported.warnings.end());
  }
}
else {
  const bool has_native = std::any_of(jobs.begin(), jobs.end(),
                                      [](const Job& j) { return j.kind != Job::Kind::command; });
  source = has_native ? "native" : "command";
}
run.source = source;

{
  ProgressLine progress(!o.quiet && ::isatty(STDERR_FILENO) == 1);
  const engine::PhaseSink sink = [&progress](const engine::CasePhase& p) { progress.phase(p); };
  const bool json = o.format == "json";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    progress.start_case(i, jobs.size(), job.display);
    double seconds = 0;
    if (job.kind == Job::Kind::native) {
      const engine::CaseOutcome outcome = o.no_fork
                                              ? engine::run_case_in_process(job.native, sink)
                                              : engine::run_case_isolated(job.native, sink, json);
      seconds = outcome.seconds;
      results.push_back(engine::native_result(run.header.id, job.native, outcome));
      if (outcome.failure) {
        any_failed = true;
        run.warnings.push_back(fmt::format("case {} failed ({}): {}", job.display,
                                           outcome.failure->kind, outcome.failure->message));
      } else {
        for (const auto& w : outcome.measurement->warnings)
          run.warnings.push_back("case " + job.display + ": " + w);
      }
    } else if (job.kind == Job::Kind::command) {
      const engine::CommandOutcome outcome =
          engine::run_command_case(job.command, job.command_settings, sink);
      seconds = outcome.seconds;
      results.push_back(engine::command_result(run.header.id, job.command, outcome));
      if (outcome.failure) {
        any_failed = true;
        run.warnings.push_back(
            fmt::format("command {} failed: {}", job.display, outcome.failure->message));
      } else {
        for (const auto& w : outcome.measurement->warnings)
          run.warnings.push_back("command " + job.display + ": " + w);
      }
    } else {
      const auto start = Clock::now();
      std::vector<std::string> argv = {job.binary, "--format", "json", "--dry-run", "--quiet"};
      for (const std::string& flag : forwarded_flags(o)) argv.push_back(flag);
      const engine::CapturedRun captured_run = engine::run_capturing_stdout(argv);
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (!captured_run.exit_code ||
          (*captured_run.exit_code != 0 && *captured_run.exit_code != 1)) {
        throw Error(job.binary + " failed (" +
                    (captured_run.signal
                         ? "killed by signal " + std::to_string(*captured_run.signal)
                         : "exit status " + std::to_string(captured_run.exit_code.value_or(-1))) +
                    "); run it by itself to see why");
      }
      for (Record& record : model::parse_record_lines(captured_run.output, job.binary)) {
        if (auto* r = std::get_if<ResultRecord>(&record)) {
          r->run = run.header.id;
          if (r->primary == "failed") any_failed = true;
          results.push_back(std::move(*r));
        } else if (auto* binary_run = std::get_if<RunRecord>(&record)) {
          for (const auto& w : binary_run->warnings) run.warnings.push_back(job.binary + ": " + w);
        }
      }
    }
    progress.finish_case(seconds);
  }
}

// The environment's load average is read before measuring; a rise during the run, from
// other processes starting, is worth a warning too.
if (!jobs.empty() && run.env.load_avg && !run.env.load_avg->empty()) {
  double now[3] = {0, 0, 0};
  const double cpus =
      static_cast<double>(run.env.cpu.affinity.value_or(run.env.cpu.logical.value_or(1)));
  const double before = run.env.load_avg->front();
  if (::getloadavg(now, 3) >= 1 && now[0] > cpus && now[0] > before + 1) {
    run.warnings.push_back(fmt::format(
        "the 1-minute load average rose from {:.2f} to {:.2f} during the run, with {} CPUs "
        "available: other processes competed for the CPUs",
        before, now[0], cpus));
  }
}

// ---- append
std::vector<Record> batch;
std::vector<std::string> ids;
batch.emplace_back(run);
ids.push_back(run.header.id);
for (const ResultRecord& r : results) {
  batch.emplace_back(r);
  ids.push_back(r.header.id);
}
std::unique_ptr<ledger::Store> store;
if (!o.dry_run) {
  store = ledger::open_store(o.ledger.value_or(ledger::default_ledger_uri()));
  store->append(batch);
}

// ---- print
if (o.format == "json") {
  if (store) {
    for (const std::string& line : stored_bytes(*store, ids)) std::cout << line << '\n';
  } else {
    for (const Record& record : batch) std::cout << serialize(record) << '\n';
  }
} else {
  print_summary(results);
  if (store) {
    std::cout << fmt::format("\nrun {}{}: {} appended to {}\n", run.header.id,
                             label ? " (" + *label + ")" : "",
                             report::plural(results.size(), "result", "results"), store->uri());
  } else {
    std::cout << fmt::format("\nrun {}: {} (dry run: nothing appended)\n", run.header.id,
                             report::plural(results.size(), "result", "results"));
  }
}
std::cout.flush();
if (show_diagnostics) {
  for (const std::string& warning : run.warnings) std::cerr << "warning: " << warning << '\n';
}
return any_failed ? 1 : 0;
}  // namespace benchledger::cli

}  // namespace benchledger::cli

namespace benchledger {

int native_main(int argc, char** argv, const char* compiler, const char* build_type) {
  CLI::App app{"benchmarks of this program; the results are appended to a benchledger ledger"};
  cli::RunOptions options;
  cli::add_run_options(app, options, true);
  // As the benchledger binary does (main.cpp): output that went nowhere is not success.
  const auto finish = [argv](int code) {
    if (const auto problem = cli::close_standard_output()) {
      std::cerr << argv[0] << ": " << *problem << '\n';
      return code != 0 ? code : cli::k_exit_stdout_failed;
    }
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return finish(app.exit(e));
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return finish(2);
  }
  cli::RunContext context;
  context.native_registry = &global_registry();
  context.compiler = compiler;
  context.build_type = build_type;
  context.argv.assign(argv, argv + argc);
  try {
    return finish(cli::execute_run(options, context));
  } catch (const IntegrityError& e) {
    std::cerr << argv[0] << ": " << e.what() << '\n';
    return finish(1);
  } catch (const Error& e) {
    std::cerr << argv[0] << ": " << e.what() << '\n';
    return finish(2);
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": internal error: " << e.what() << '\n';
    return finish(3);
  }
}

}  // namespace benchledger
