// A ledger is the file its path leads to: appends through a symbolic link (to the file or to a
// directory above it) share the real file's lock, marker and side files, so a writer killed
// through one name costs nothing acknowledged through another; a path that leads to anything
// but a regular file is refused with exit 2 before any side file is made; a ledger of one store
// named as the other's is refused with its bytes as they were; and a torn tail that cannot be
// moved aside on a full disk leaves no side file and the ledger as it was.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <set>
#include <thread>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

constexpr int k_hang_guard_seconds = 120;

std::string ndjson_of(const std::vector<Record>& batch) {
  std::string text;
  for (const auto& record : batch) text += serialize(record) + "\n";
  return text;
}

// Every file under `dir` whose name contains `part`.
std::vector<std::filesystem::path> files_named(const std::filesystem::path& dir,
                                               const std::string& part) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().find(part) != std::string::npos) {
      out.push_back(entry.path());
    }
  }
  return out;
}

std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    out.insert(entry.path().filename().string());
  }
  return out;
}

// The id `ledger note` printed: "appended note ID on TARGET; head HASH".
std::string note_id(const ProcessResult& result) {
  const std::string prefix = "appended note ";
  REQUIRE(result.out.rfind(prefix, 0) == 0);
  return result.out.substr(prefix.size(), result.out.find(' ', prefix.size()) - prefix.size());
}

std::vector<std::string> ids_in(const std::string& uri) {
  std::vector<std::string> ids;
  open_store(uri)->scan([&](const StoredRecord& stored) {
    ids.push_back(header_of(stored.record).id);
    return true;
  });
  return ids;
}

void require_root(const std::string& why) {
  if (::geteuid() != 0) FAIL("this test must run as root (tools/test does): " << why);
}

}  // namespace

TEST_CASE("a writer killed appending through a link costs nothing acknowledged through the file") {
  // Both kinds of second name: a link to the file, and a link to the directory above it.
  struct Names {
    std::string kind, real, alias;
  };
  ScratchDir dir;
  std::filesystem::create_directory(dir / "realdir");
  std::filesystem::create_directory_symlink("realdir", dir / "aliasdir");
  std::filesystem::create_symlink("real.ndjson", dir / "alias.ndjson");
  const std::vector<Names> cases = {
      {"file link", (dir / "real.ndjson").string(), (dir / "alias.ndjson").string()},
      {"directory link", (dir / "realdir" / "real.ndjson").string(),
       (dir / "aliasdir" / "real.ndjson").string()}};
  for (const auto& names : cases) {
    INFO(names.kind);
    const auto first = fresh_batch("first", 4);  // 5 records
    open_store(names.real)->append(first);
    const std::string before = read_file(names.real);
    const auto big = fresh_batch("big", 3000);
    const std::string input =
        (dir / ("big-" + std::to_string(names.real.size()) + ".ndjson")).string();
    write_file(input, ndjson_of(big));

    // The importer writes half of its batch through the link and stops there (the fault seam
    // holds it, so that the kill lands mid-batch every time); then a real SIGKILL.
    ProcessOptions hang;
    hang.env = {"BENCHLEDGER_TEST_FAULT=short-write-hang"};
    Child importer = spawn({cli_path(), "ledger", "import", input, "--ledger", names.alias}, hang);
    bool half_written = false;
    for (int wait = 0; wait < 100 * k_hang_guard_seconds && !half_written; ++wait) {
      half_written = !files_named(dir.path(), ".appending").empty() &&
                     std::filesystem::file_size(names.real) > before.size();
      if (!half_written) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(importer.pid, SIGKILL);
    const ProcessResult killed = finish(importer);
    INFO(killed.err);
    REQUIRE(half_written);
    REQUIRE(killed.signal == SIGKILL);

    // A note through the file's own name is acknowledged, then one through the link.
    const std::string run = header_of(first[0]).id;
    const ProcessResult through_file = run_ledger(
        {"note", run, "--kind", "comment", "--text", "through the file", "--ledger", names.real});
    INFO(through_file.err);
    REQUIRE(through_file.exit_code == 0);
    const ProcessResult through_link = run_ledger(
        {"note", run, "--kind", "comment", "--text", "through the link", "--ledger", names.alias});
    INFO(through_link.err);
    REQUIRE(through_link.exit_code == 0);

    // Both notes are there, the first batch as it was, and nothing of the killed batch.
    const std::string after = read_file(names.real);
    CHECK(after.substr(0, before.size()) == before);
    std::vector<std::string> expected;
    for (const auto& record : first) expected.push_back(header_of(record).id);
    expected.push_back(note_id(through_file));
    expected.push_back(note_id(through_link));
    CHECK(ids_in(names.real) == expected);
    CHECK(ids_in(names.alias) == expected);
    CHECK(run_ledger({"verify", "--ledger", names.alias}).exit_code == 0);
    CHECK(std::filesystem::is_symlink(dir / "alias.ndjson"));
    CHECK(files_named(dir.path(), ".appending").empty());
    // The half batch went aside, next to the real file, and nothing acknowledged with it.
    const auto torn = files_named(dir.path(), ".torn-");
    CHECK(torn.size() == 1);
    for (const auto& side : torn) {
      CHECK(side.parent_path() == std::filesystem::path(names.real).parent_path());
      const std::string moved = read_file(side);
      CHECK(moved.find(note_id(through_file)) == std::string::npos);
      CHECK(moved.find(note_id(through_link)) == std::string::npos);
      std::filesystem::remove(side);
    }
  }
}

TEST_CASE("a ledger path to a device, FIFO or directory is refused before any side file") {
  require_root("it makes device nodes with mknod in its scratch directory");
  ScratchDir dir;
  // Device nodes in the scratch directory, so that a side file would land there to be seen.
  REQUIRE(::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  REQUIRE(::mknod((dir / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  std::filesystem::create_directory(dir / "directory");
  std::filesystem::create_symlink("null", dir / "link.ndjson");
  const std::string input = (dir / "input.ndjson").string();
  write_file(input, ndjson_of(fresh_batch("current", 2)));
  const std::set<std::string> before = names_in(dir.path());

  struct Path {
    std::string name, kind;
  };
  const std::vector<Path> paths = {{"null", "a character device"},
                                   {"full", "a character device"},
                                   {"fifo", "a FIFO"},
                                   {"directory", "a directory"},
                                   {"link.ndjson", "a character device"}};
  const std::vector<std::vector<std::string>> commands = {
      {"import", input}, {"log"}, {"verify"}, {"export"}};
  for (const auto& path : paths) {
    for (const std::string scheme : {"ndjson:", "sqlite:"}) {
      const std::string uri = scheme + (dir / path.name).string();
      for (auto command : commands) {
        INFO(uri << " " << command[0]);
        command.insert(command.end(), {"--ledger", uri});
        ProcessOptions guarded;
        guarded.hang_guard_seconds = k_hang_guard_seconds;
        const ProcessResult result = run_ledger(command, guarded);
        INFO(result.err);
        CHECK_FALSE(result.hung);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.err, Catch::Contains("ledger " + (dir / path.name).string()) &&
                                   Catch::Contains("is " + path.kind + ", not a regular file"));
        CHECK(names_in(dir.path()) == before);
      }
    }
  }
  struct stat st {};
  REQUIRE(::stat((dir / "null").c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  REQUIRE(::stat((dir / "fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("a ledger named as the other file store's is refused and keeps its bytes") {
  ScratchDir dir;
  const std::string input = (dir / "input.ndjson").string();
  write_file(input, ndjson_of(fresh_batch("current", 2)));
  const std::string ndjson = (dir / "ledger.ndjson").string();
  const std::string sqlite = (dir / "ledger.db").string();
  open_store(ndjson)->append(fresh_batch("baseline", 3));
  open_store("sqlite:" + sqlite)->append(fresh_batch("baseline", 3));
  // A SQLite file has bytes after its last '\n': read as NDJSON, they would pass for a torn
  // tail, to be moved aside and truncated away. A copy named .ndjson is the same file to a writer.
  std::filesystem::copy_file(sqlite, dir / "sqlite-copy.ndjson");
  const std::string sqlite_bytes = read_file(sqlite);
  const std::string ndjson_bytes = read_file(ndjson);

  struct Case {
    std::string uri, file, bytes, says;
  };
  const std::vector<Case> cases = {
      {"ndjson:" + sqlite, sqlite, sqlite_bytes, "it is a SQLite database, not an NDJSON ledger"},
      {(dir / "sqlite-copy.ndjson").string(), (dir / "sqlite-copy.ndjson").string(), sqlite_bytes,
       "it is a SQLite database, not an NDJSON ledger"},
      {"sqlite:" + ndjson, ndjson, ndjson_bytes, ndjson}};
  const std::set<std::string> before = names_in(dir.path());
  for (const auto& c : cases) {
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{cli_path(), "ledger", "import", input, "--ledger", c.uri},
          std::vector<std::string>{cli_path(), "run", "--ledger", c.uri, "--name", "t", "--runs",
                                   "1", "--", "true"}}) {
      INFO(c.uri << " " << command[1]);
      const ProcessResult result = run_process(command);
      INFO(result.err);
      CHECK(result.exit_code == 2);
      CHECK_THAT(result.err, Catch::Contains(c.says));
      CHECK(read_file(c.file) == c.bytes);
      CHECK(names_in(dir.path()) == before);
    }
  }
  CHECK(open_store("sqlite:" + sqlite)->verify(std::nullopt).ok);
  CHECK(open_store(ndjson)->verify(std::nullopt).ok);
}

TEST_CASE("a torn tail that cannot be moved aside on a full disk leaves no side file") {
  require_root("it mounts a small tmpfs as a full disk");
  ScratchDir dir;
  const auto mount_point = dir / "disk";
  std::filesystem::create_directory(mount_point);
  REQUIRE(::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=256k") == 0);
  struct Unmount {
    std::filesystem::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{mount_point};

  const auto ledger = mount_point / "ledger.ndjson";
  const auto batch = fresh_batch("baseline", 2);
  open_store(ledger.string())->append(batch);
  write_file(ledger, read_file(ledger) + R"({"schema":"benchledger/1","type":"res)");
  const std::string before = read_file(ledger);
  {
    // Fill the disk to the last byte.
    const int fd = ::open((mount_point / "filler").c_str(), O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    const std::string block(4096, 'f');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    while (::write(fd, block.data(), 1) > 0) {
    }
    REQUIRE(errno == ENOSPC);
    ::close(fd);
  }

  const ProcessResult note = run_ledger({"note", header_of(batch[0]).id, "--kind", "comment",
                                         "--text", "on a full disk", "--ledger", ledger.string()});
  INFO(note.err);
  CHECK(note.exit_code == 2);
  CHECK_THAT(note.err, Catch::Contains("cannot move the torn tail of " + ledger.string()) &&
                           Catch::Contains("No space left on device"));
  CHECK(files_named(mount_point, ".torn-").empty());
  CHECK(files_named(mount_point, ".appending").empty());
  CHECK(read_file(ledger) == before);

  // With room again, the next append moves the tail aside and goes on.
  std::filesystem::remove(mount_point / "filler");
  const ProcessResult again = run_ledger({"note", header_of(batch[0]).id, "--kind", "comment",
                                          "--text", "with room", "--ledger", ledger.string()});
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(files_named(mount_point, ".torn-").size() == 1);
  CHECK(run_ledger({"verify", "--ledger", ledger.string()}).exit_code == 0);
}
