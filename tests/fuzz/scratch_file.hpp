// A file for the targets whose reader takes a path (the config file, a ledger): one folder per
// process under $TMPDIR (libFuzzer's -jobs run several), removed when the process exits
// normally.
#pragma once

#include <filesystem>
#include <string_view>

namespace benchledger::fuzz {

// `name` in this process's scratch folder, holding `content` (truncated and rewritten).
std::filesystem::path write_scratch_file(std::string_view name, std::string_view content);

}  // namespace benchledger::fuzz
