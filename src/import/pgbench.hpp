// pgbench's own output to result records (docs/postgres.md, "Importing pgbench output").
//
// A pgbench run is read from its files together: its output (stdout and stderr in one file:
// the summary, the --progress lines, the --report-per-command statements) and any number of
// its -l per-transaction logs (pgbench_log.PID, pgbench_log.PID.N), each file recognised by
// its content.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "import/import.hpp"

namespace benchledger::import {

// One file of a pgbench run: its text and where it came from (for messages).
struct PgbenchFile {
  std::string text;
  std::string origin;
};

// One result for the run, bench `pgbench/SCRIPT` (tpcb-like, simple-update, select-only, or a
// custom script's name), params clients, jobs, scale and query_mode:
// - `tps` (ops/s, higher, primary): pgbench's tps, with one sample per --progress line;
// - `latency` (ms): the average and stddev of the summary, the progress lines' averages as
//   samples, and, from -l logs, n, min, max and the percentiles p50 … p99.9;
// - `connection_time` (ms): the initial connection time;
// - `retried` and `retries` (count) when pgbench retried (--max-tries);
// ops = transactions processed, errors = failed transactions.
// With --report-per-command, one more result per statement, bench `pgbench/SCRIPT/statement`,
// params those of the run plus `statement` (its position, 1 …) and `command` (its text):
// `latency` (ms), errors = its failures.
// Throws Error `ORIGIN: line N: …` on a line that is not pgbench's, and when no file holds a
// summary or progress lines.
// pgbench writes its summary when the run ends, its `tps = ` line last but for the statements of
// --report-per-command: an output without that line (progress lines only, or a summary cut
// off), or whose list of a built-in script's statements stops before the script's last one, was
// cut short, and `partial` says what happens (the run's result needs its summary; the statements
// are what Partial::keep_complete can leave out). A failed run (aborted clients, failed
// transactions) writes its summary and is read as today, its errors counted. The -l logs state no
// end: a summary that counts more transactions than they hold is warned about.
ImportedResults read_pgbench(const std::vector<PgbenchFile>& files,
                             Partial partial = Partial::refuse);

// Reads the files (each bounded as import_file bounds one) and calls read_pgbench.
ImportedResults import_pgbench(const std::vector<std::filesystem::path>& paths,
                               Partial partial = Partial::refuse);

}  // namespace benchledger::import
