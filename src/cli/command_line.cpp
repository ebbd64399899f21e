// The one mapping of exceptions to exit codes (command_line.hpp).
#include "cli/command_line.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <benchledger/error.hpp>

#include "cli/standard_output.hpp"
#include "engine/stop_signals.hpp"
#include "model/redact.hpp"

namespace benchledger::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and the swap of two
// neighbours (`comapre`) each cost one.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The candidate nearest to `word` when it is near enough to be a typo of it (two edits, one for
// a word of four letters or fewer), else nothing.
std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_distance = word.size() <= 4 ? 2 : 3;
  for (const std::string& name : names) {
    const std::size_t distance = edit_distance(word, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

// `did you mean` lines for the words of a refused command line that are near a subcommand or a
// long option of the subcommand they were given to.
std::string did_you_mean(const CLI::App& app) {
  const CLI::App* scope = &app;
  while (!scope->get_subcommands().empty()) scope = scope->get_subcommands().front();
  std::vector<std::string> options;
  for (const CLI::Option* option : scope->get_options()) {
    for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
  }
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : scope->get_subcommands([](const CLI::App*) { return true; }))
    subcommands.push_back(sub->get_name());
  std::string hints;
  for (const std::string& word : app.remaining(true)) {
    if (word.starts_with("--")) {
      const std::string name = word.substr(0, word.find('='));
      if (const auto near = nearest(name, options))
        hints += "did you mean " + *near + " (not " + name + ")?\n";
    } else if (!word.starts_with("-") && !subcommands.empty()) {
      if (const auto near = nearest(word, subcommands)) {
        hints += "did you mean " + *near + " (not " + word + ")?\n";
      } else {
        std::string names;
        for (const std::string& sub : subcommands) names += (names.empty() ? "" : ", ") + sub;
        hints += word + " is not a subcommand; the subcommands: " + names + "\n";
      }
      break;  // the words after a subcommand's name are its arguments
    }
  }
  return hints;
}

}  // namespace

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
    message << did_you_mean(app);
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
