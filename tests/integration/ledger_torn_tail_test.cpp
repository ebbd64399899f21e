// A torn tail — the last record cut at any byte, or random bytes after the last line — is
// ignored by readers with a warning, and the next append moves it aside before appending, so
// every earlier record is kept and nothing is glued onto the torn line.
#include <catch2/catch.hpp>

#include <random>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

std::vector<std::filesystem::path> side_files(const ScratchDir& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().find(".torn-") != std::string::npos) {
      out.push_back(entry.path());
    }
  }
  return out;
}

std::size_t count_records(const Store& store) {
  std::size_t count = 0;
  store.scan([&](const StoredRecord&) {
    ++count;
    return true;
  });
  return count;
}

// Readers see the intact records and warn; the next append repairs; the chain verifies.
void check_torn(const ScratchDir& dir, const std::string& intact, const std::string& tail,
                std::size_t intact_records) {
  const auto path = dir / "ledger.ndjson";
  write_file(path, intact + tail);
  const auto store = open_store(path.string());
  REQUIRE(count_records(*store) == intact_records);
  REQUIRE(store->warnings().size() == 1);
  CHECK_THAT(store->warnings()[0], Catch::Contains("torn tail"));
  const VerifyReport before = store->verify(std::nullopt);
  REQUIRE(before.ok);
  CHECK(before.records == static_cast<std::int64_t>(intact_records));

  const auto batch = fresh_batch("after", 0);
  store->append(batch);
  const std::string repaired = read_file(path);
  REQUIRE(repaired.substr(0, intact.size()) == intact);
  const auto lines = split_lines(repaired.substr(intact.size()));
  REQUIRE(lines.size() == 1);
  REQUIRE(repaired.back() == '\n');
  const Record appended = parse_record(lines[0]);  // whole: nothing glued onto it
  CHECK(header_of(appended).id == header_of(batch[0]).id);
  CHECK(header_of(appended).prev == sha256_hex(split_lines(intact).back()));
  const auto sides = side_files(dir);
  REQUIRE(sides.size() == 1);
  CHECK(read_file(sides[0]) == tail);
  std::filesystem::remove(sides[0]);
  CHECK(store->verify(std::nullopt).ok);
}

}  // namespace

TEST_CASE("the last record cut at every byte offset is ignored, then repaired by an append") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  {
    const auto store = open_store(path.string());
    const auto batch = fresh_batch("baseline", 2);
    store->append(batch);
    store->append({fresh_note(header_of(batch[1]).id)});
  }
  const std::string full = read_file(path);
  const auto lines = split_lines(full);
  REQUIRE(lines.size() == 4);
  const std::string last = lines.back() + "\n";
  const std::string intact = full.substr(0, full.size() - last.size());
  // Every cut from one byte up to the whole line without its '\n'.
  for (std::size_t cut = 1; cut < last.size(); ++cut) {
    INFO("cut after " << cut << " of " << last.size() << " bytes");
    check_torn(dir, intact, last.substr(0, cut), 3);
  }
}

TEST_CASE("4 KiB of random bytes after the last line are ignored, then moved aside") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  open_store(path.string())->append(fresh_batch("baseline", 3));
  const std::string intact = read_file(path);
  std::mt19937 random(4096);
  std::string tail(4096, '\0');
  for (auto& byte : tail) {
    byte = static_cast<char>(random() % 256);
    if (byte == '\n') byte = ' ';  // a tail with a newline would be a corrupt record instead
  }
  check_torn(dir, intact, tail, 4);
}

TEST_CASE("verify on the command line warns about a torn tail and still exits 0") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  open_store(path.string())->append(fresh_batch("baseline", 1));
  write_file(path, read_file(path) + R"({"schema":"benchledger/1","type":"res)");
  const ProcessResult result = run_ledger({"verify", "--ledger", path.string()});
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("warning") && Catch::Contains("torn tail"));
  CHECK_THAT(result.out, Catch::StartsWith("ok: ") && Catch::Contains("2 records"));
}
