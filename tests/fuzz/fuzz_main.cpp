// The libFuzzer binary of every target (docs/fuzzing.md). It runs as `NAME_fuzz`, a link to it
// named after the target: one binary to link rather than one per target, since each link of the
// instrumented library takes longer than compiling a target. Its coverage feedback is the
// target's alone: the other targets' code is in the binary but never runs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_targets.hpp"

namespace {

const benchledger::fuzz::Target* g_target = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static_cast<void>(argc);
  std::string name = std::filesystem::path((*argv)[0]).filename().string();
  constexpr std::string_view suffix = "_fuzz";
  if (name.size() > suffix.size() && name.ends_with(suffix))
    name.resize(name.size() - suffix.size());
  g_target = benchledger::fuzz::find_target(name);
  if (g_target == nullptr) {
    std::fprintf(stderr, "%s: run me as NAME_fuzz, a link named after a target:", (*argv)[0]);
    for (const auto& target : benchledger::fuzz::targets()) {
      std::fprintf(stderr, " %.*s", static_cast<int>(target.name.size()), target.name.data());
    }
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  g_target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
