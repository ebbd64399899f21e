// The one mapping of exceptions to exit codes (command_line.hpp).
#include "cli/command_line.hpp"

#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "cli/standard_output.hpp"
#include "engine/stop_signals.hpp"
#include "model/redact.hpp"

namespace benchledger::cli {

int run_command_line(const std::string& program, CLI::App& app, const std::function<void()>& parse,
                     const std::function<int()>& command) {
  // Whatever the command did, its output must have reached standard output: else exit 2 (or
  // the command's own non-zero code), saying so on stderr.
  const auto finish = [&program](int code) {
    if (const auto problem = close_standard_output()) {
      std::cerr << program << ": " << *problem << '\n';
      return code != 0 ? code : k_exit_stdout_failed;
    }
    return code;
  };
  try {
    parse();
  } catch (const CLI::Success& e) {  // --help, --version
    return finish(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // CLI11's message quotes the arguments it refused, a password among them perhaps.
    std::ostringstream message;
    app.exit(e, std::cout, message);
    std::cerr << model::redact_secrets(message.str());
    return finish(2);  // usage errors are exit 2 everywhere, whatever CLI11's own code
  }
  try {
    return finish(command());
  } catch (const IntegrityError& e) {
    std::cerr << program << ": " << model::redact_secrets(e.what()) << '\n';
    return finish(1);
  } catch (const Error& e) {
    // A message may quote an argument: the same rule as the ledger's (model/redact.hpp).
    std::cerr << program << ": " << model::redact_secrets(e.what()) << '\n';
    return finish(2);
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << model::redact_secrets(e.what()) << '\n';
    return finish(3);
  }
}

int run_until_stopped(const std::string& name, const std::function<int()>& run,
                      const std::function<std::string()>& aftermath) {
  int status = 0;
  {
    const engine::StopSignals stop_signals;
    try {
      status = run();
    } catch (const Error&) {
      if (engine::stop_signal() == 0) throw;
    }
    if (engine::stop_signal() == 0) return status;
  }
  const int signal = engine::stop_signal();
  std::cerr << fmt::format("{}: stopped by signal {} (SIG{}); {}\n", name, signal,
                           ::sigabbrev_np(signal), aftermath());
  std::cerr.flush();
  std::ignore = std::signal(signal, SIG_DFL);
  std::ignore = std::raise(signal);
  return 128 + signal;
}

}  // namespace benchledger::cli
