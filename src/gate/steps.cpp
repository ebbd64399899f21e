#include "gate/steps.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "model/output_tail.hpp"
#include "process/process.hpp"

namespace benchledger::gate {

std::string ProcessResult::describe() const {
  if (exit_code) return fmt::format("exit status {}", *exit_code);
  if (signal) return "killed by signal " + process::signal_name(*signal);
  return "ended in an unknown way";
}

ProcessResult run_process(process::Executor& executor, const std::vector<std::string>& argv,
                          const std::filesystem::path& dir, const std::filesystem::path& log,
                          bool capture_stdout, const std::vector<int>& cpus) {
  if (argv.empty()) throw Error("no command to run");
  // A group of its own: a stop signal reaches the step and everything it started (a build's
  // compilers), and only through the gate, which passes it on; beside another step in a duet.
  process::Spec spec;
  spec.argv = argv;
  spec.dir = dir;
  spec.cpus = cpus;
  spec.err = process::Stream::to_file(log, true);
  spec.out = capture_stdout ? process::Stream::capture() : spec.err;
  ProcessResult result;
  try {
    process::Exit exit = executor.run(spec);
    result.exit_code = exit.exit_code;
    result.signal = exit.signal;
    result.output = std::move(exit.out);
  } catch (const process::SpawnError& e) {
    // As in a shell: the step's log says why, and the step exits 127.
    append_to_log(log, std::string("benchledger gate: ") + e.what());
    result.exit_code = 127;
  }
  return result;
}

void append_to_log(const std::filesystem::path& log, const std::string& line) {
  std::ofstream out(log, std::ios::app);
  out << line << '\n';
  if (!out) throw Error("cannot write the gate's log " + log.string());
}

std::string log_tail(const std::filesystem::path& log, std::size_t lines) {
  const std::string tail = model::file_tail(log, lines);
  std::string out;
  for (std::size_t at = 0; at < tail.size();) {
    const std::size_t end = std::min(tail.find('\n', at), tail.size());
    out += "  " + tail.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

}  // namespace benchledger::gate
