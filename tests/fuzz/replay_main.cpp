// Runs a fuzz target over corpus files without libFuzzer, so that ctest replays every corpus on
// every build: `fuzz_replay TARGET PATH...`, each PATH a file or a folder of files, each file
// one input.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.hpp"

int main(int argc, char** argv) {
  const benchledger::fuzz::Target* target =
      argc > 1 ? benchledger::fuzz::find_target(argv[1]) : nullptr;
  if (target == nullptr) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET PATH... (targets:");
    for (const auto& t : benchledger::fuzz::targets()) {
      std::fprintf(stderr, " %.*s", static_cast<int>(t.name.size()), t.name.data());
    }
    std::fprintf(stderr, ")\n");
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 2; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "fuzz_replay: no inputs (give corpus files or folders)\n");
    return 2;
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Named before it runs: a crash's output ends with the input that caused it.
    std::fprintf(stderr, "%s\n", path.c_str());
    target->run(bytes);
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
