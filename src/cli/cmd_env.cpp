// `benchledger env`: the environment fingerprint that `run` would record, as a readable table
// (with the stability warnings) or, with --format json, as the exact `env` object.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

#include "cli/subcommand.hpp"
#include "env/env.hpp"
#include "report/text_table.hpp"

namespace benchledger::cli {

namespace {

struct EnvOptions {
  std::string format = "table";
  std::optional<std::string> dsn;
  int timeout_ms = 2000;
};

std::string text(const std::optional<std::string>& value) {
  return value ? *value : "-";
}

std::string text(const std::optional<std::int64_t>& value) {
  return value ? std::to_string(*value) : "-";
}

std::string text(const std::optional<bool>& value) {
  if (!value) return "-";
  return *value ? "on" : "off";
}

std::string bytes(const std::optional<std::int64_t>& value) {
  if (!value) return "-";
  static const char* const k_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(*value);
  std::size_t unit = 0;
  while (scaled >= 1024 && unit + 1 < std::size(k_units)) {
    scaled /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", *value);
  return fmt::format("{:.1f} {} ({} bytes)", scaled, k_units[unit], *value);
}

void print_table(const Env& env, const std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"host", text(env.host)},
      {"cpu.model", text(env.cpu.model)},
      {"cpu.vendor", text(env.cpu.vendor)},
      {"cpu.arch", text(env.cpu.arch)},
      {"cpu.logical", text(env.cpu.logical)},
      {"cpu.physical", text(env.cpu.physical)},
      {"cpu.sockets", text(env.cpu.sockets)},
      {"cpu.online", text(env.cpu.online)},
      {"cpu.affinity", text(env.cpu.affinity)},
      {"cpu.quota", env.cpu.quota ? fmt::format("{:g} CPUs", *env.cpu.quota) : "unlimited"},
      {"cpu.mhz", env.cpu.mhz ? fmt::format("{:g}", *env.cpu.mhz) : "-"},
      {"cpu.governor", text(env.cpu.governor)},
      {"cpu.turbo", text(env.cpu.turbo)},
      {"cpu.smt", text(env.cpu.smt)},
      {"cpu.cache_bytes.l1d", bytes(env.cpu.cache_bytes.l1d)},
      {"cpu.cache_bytes.l2", bytes(env.cpu.cache_bytes.l2)},
      {"cpu.cache_bytes.l3", bytes(env.cpu.cache_bytes.l3)},
      {"memory.total_bytes", bytes(env.memory.total_bytes)},
      {"memory.limit_bytes", env.memory.limit_bytes ? bytes(env.memory.limit_bytes) : "unlimited"},
      {"os.name", text(env.os.name)},
      {"os.version", text(env.os.version)},
      {"os.kernel", text(env.os.kernel)},
      {"virtualization", text(env.virtualization)},
      {"container.kind", text(env.container.kind)},
      {"container.docker_version", text(env.container.docker_version)},
      {"clock.source", text(env.clock.source)},
      {"clock.read_ns", env.clock.read_ns ? fmt::format("{:g} ns", *env.clock.read_ns) : "-"},
      {"runtimes.compiler", text(env.runtimes.compiler)},
      {"runtimes.build_type", text(env.runtimes.build_type)},
      {"runtimes.node", text(env.runtimes.node)},
      {"runtimes.python", text(env.runtimes.python)},
      {"runtimes.postgres_client", text(env.runtimes.postgres_client)},
      {"runtimes.postgres_server", text(env.runtimes.postgres_server)},
  };
  if (env.postgres) {
    const PostgresSettings& pg = *env.postgres;
    rows.insert(rows.end(),
                {{"postgres.shared_buffers", text(pg.shared_buffers)},
                 {"postgres.synchronous_commit", text(pg.synchronous_commit)},
                 {"postgres.fsync", text(pg.fsync)},
                 {"postgres.max_connections", text(pg.max_connections)},
                 {"postgres.wal_level", text(pg.wal_level)},
                 {"postgres.work_mem", text(pg.work_mem)},
                 {"postgres.same_host", pg.same_host ? (*pg.same_host ? "yes" : "no") : "-"}});
  }
  rows.insert(rows.end(),
              {
                  {"load_avg", env.load_avg && env.load_avg->size() == 3
                                   ? fmt::format("{:.2f} {:.2f} {:.2f}", (*env.load_avg)[0],
                                                 (*env.load_avg)[1], (*env.load_avg)[2])
                                   : "-"},
                  {"fingerprint", env.fingerprint},
              });
  std::vector<report::TextRow> lines;
  for (const auto& [name, value] : rows) lines.push_back({name, value});
  std::string out = report::TextTable().render(lines);
  out += "(- means unknown or not present)\n";
  if (!warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& warning : warnings) out += "  - " + warning + "\n";
  }
  std::cout << out;
}

}  // namespace

Runner add_env_command(CLI::App& app) {
  auto options = std::make_shared<EnvOptions>();
  CLI::App* sub = app.add_subcommand("env", "print the environment fingerprint that run records");
  sub->add_option("--format", options->format,
                  "table (readable, with stability warnings) or json (the exact env object)")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_str("table");
  sub->add_option("--pg", options->dsn,
                  "PostgreSQL connection string or URI; fills runtimes.postgres_server from "
                  "SELECT version()");
  sub->add_option("--probe-timeout-ms", options->timeout_ms,
                  "the most one probe (a tool, the Postgres connection) may take")
      ->check(CLI::Range(1, 600000))
      ->default_str("2000");

  return [options]() -> int {
    env::CaptureOptions capture_options;
    capture_options.postgres_dsn = options->dsn;
    capture_options.probe_timeout = std::chrono::milliseconds(options->timeout_ms);
    const env::Capture capture = env::capture_with_notes(capture_options);
    // Probes that failed say why on stderr; their fields are null.
    for (const auto& note : capture.notes) std::cerr << "benchledger: env: " << note << '\n';
    if (options->format == "json") {
      std::cout << to_json(capture.env).dump() << '\n';
    } else {
      print_table(capture.env, env::stability_warnings(capture.env));
    }
    return 0;  // main checks that the output was written (cli/standard_output.hpp)
  };
}

}  // namespace benchledger::cli
