// The long ledgers of the self-benchmarks that read them: built once into $TMPDIR, kept for later
// runs, and read into the page cache before they are timed.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace benchledger::self_bench {

// $TMPDIR/benchledger-bench/NAME, filled by `build` (given an empty folder) when it was not
// built before; a build cut short is begun again. Delete the folder to rebuild it.
inline std::filesystem::path kept_ledgers(
    const std::string& name, const std::function<void(const std::filesystem::path&)>& build) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / "benchledger-bench" / name;
  if (fs::exists(base / "done")) return base;
  const fs::path building = base.string() + ".building";
  fs::remove_all(building);
  fs::create_directories(building);
  std::fprintf(stderr, "building %s (once) ...\n", base.c_str());
  build(building);
  std::fclose(std::fopen((building / "done").c_str(), "w"));
  fs::remove_all(base);
  fs::rename(building, base);
  return base;
}

// Reads the whole file once, untimed: finds and reads are then all measured from the page cache,
// whatever ran before them (a first read from the disk is several times slower).
inline void warm_page_cache(const std::filesystem::path& path) {
  std::vector<char> buffer(1 << 20);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  while (::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  std::ignore = ::close(fd);  // nothing to do if closing a file only read fails
}

}  // namespace benchledger::self_bench
