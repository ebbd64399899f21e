// The scratch folder of the targets that read files.
#include "scratch_file.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>

namespace benchledger::fuzz {

namespace {

std::filesystem::path make_folder() {
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  std::string pattern = ((ec ? std::filesystem::path("/tmp") : tmp) / "benchledger-fuzz-XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();  // no scratch folder: nothing to fuzz
  return pattern;
}

const std::filesystem::path& folder();

void remove_folder() {
  std::error_code ignored;  // a folder left in $TMPDIR is the worst case
  std::filesystem::remove_all(folder(), ignored);
}

const std::filesystem::path& folder() {
  static const std::filesystem::path path = make_folder();
  // Registered after `path` is made, so it runs before `path` is destroyed.
  [[maybe_unused]] static const bool removed_at_exit = std::atexit(remove_folder) == 0;
  return path;
}

}  // namespace

std::filesystem::path write_scratch_file(std::string_view name, std::string_view content) {
  const std::filesystem::path path = folder() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) std::abort();  // a target would read the previous input: no result to trust
  return path;
}

}  // namespace benchledger::fuzz
