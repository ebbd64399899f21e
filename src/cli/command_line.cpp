// The one mapping of exceptions to exit codes (command_line.hpp).
#include "cli/command_line.hpp"

#include <iostream>

#include <benchledger/error.hpp>

#include "cli/standard_output.hpp"

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
    app.exit(e);
    return finish(2);  // usage errors are exit 2 everywhere, whatever CLI11's own code
  }
  try {
    return finish(command());
  } catch (const IntegrityError& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return finish(1);
  } catch (const Error& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return finish(2);
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << '\n';
    return finish(3);
  }
}

}  // namespace benchledger::cli
