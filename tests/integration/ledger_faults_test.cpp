// A full disk and I/O errors on write and on fdatasync fail the append with exit 2 and a clear
// message, leave the ledger exactly as it was (nothing reported as written that is not), and a
// failed fdatasync is reported, never retried.
#include <catch2/catch.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// A ledger with one batch, and a file of 50 more records to import into it.
struct Setup {
  ScratchDir dir;
  std::filesystem::path ledger = dir / "ledger.ndjson";
  std::filesystem::path input = dir / "input.ndjson";
  Setup() {
    open_store(ledger.string())->append(fresh_batch("baseline", 3));
    open_store(input.string())->append(fresh_batch("current", 49));
  }
  ProcessResult import(const ProcessOptions& options = {}, const std::string& uri = "") const {
    return run_ledger({"import", input.string(), "--ledger", uri.empty() ? ledger.string() : uri},
                      options);
  }
};

// A child whose first write or fdatasync fails as BENCHLEDGER_TEST_FAULT=`name` says.
ProcessOptions fault(const std::string& name) {
  ProcessOptions options;
  options.env = {"BENCHLEDGER_TEST_FAULT=" + name};
  return options;
}

void expect_refused(const ProcessResult& result, const std::string& reason) {
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Catch::Contains("cannot append to") && Catch::Contains(reason) &&
                             Catch::Contains("nothing was written"));
}

void expect_intact_then_usable(const Setup& setup, const std::string& before) {
  CHECK(read_file(setup.ledger) == before);
  CHECK_FALSE(std::filesystem::exists(setup.ledger.string() + ".appending"));
  CHECK(run_ledger({"verify", "--ledger", setup.ledger.string()}).exit_code == 0);
  const ProcessResult again = setup.import();
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("imported 50 records"));
  CHECK(run_ledger({"verify", "--ledger", setup.ledger.string()}).exit_code == 0);
}

}  // namespace

TEST_CASE("a full disk (RLIMIT_FSIZE, a real EFBIG) part way through a batch appends nothing") {
  const Setup setup;
  const std::string before = read_file(setup.ledger);
  ProcessOptions options;
  options.file_size_limit = before.size() + 5000;  // room for a few records of the batch
  expect_refused(setup.import(options), "File too large");
  expect_intact_then_usable(setup, before);
}

TEST_CASE("an I/O error on write appends nothing") {
  const Setup setup;
  const std::string before = read_file(setup.ledger);
  expect_refused(setup.import(fault("write-eio")), "Input/output error");
  expect_intact_then_usable(setup, before);
}

TEST_CASE("an I/O error after half the batch was written removes that half again") {
  const Setup setup;
  const std::string before = read_file(setup.ledger);
  const ProcessResult result = setup.import(fault("short-write-eio"));
  expect_refused(result, "Input/output error");
  CHECK_THAT(result.err, Catch::Contains("write failed after"));
  expect_intact_then_usable(setup, before);
}

TEST_CASE("a failed fdatasync is reported, not retried, and the batch is removed again") {
  const Setup setup;
  const std::string before = read_file(setup.ledger);
  // The seam fails only the first fdatasync: a retry would succeed and exit 0.
  const ProcessResult result = setup.import(fault("fdatasync-eio"));
  expect_refused(result, "fdatasync failed");
  CHECK_THAT(result.err, Catch::Contains("not retried") && Catch::Contains("Input/output error"));
  expect_intact_then_usable(setup, before);
}

TEST_CASE("an unknown fault name is refused rather than ignored") {
  const Setup setup;
  const ProcessResult result = setup.import(fault("typo"));
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("unknown fault"));
}

TEST_CASE("SQLite on a full disk (RLIMIT_FSIZE) rolls the batch back") {
  const Setup setup;
  const std::string uri = "sqlite:" + (setup.dir / "ledger.db").string();
  open_store(uri)->append(fresh_batch("baseline", 3));
  const auto db_size = std::filesystem::file_size(setup.dir / "ledger.db");
  const auto exported = [&] { return run_ledger({"export", "--ledger", uri}).out; };
  const std::string before = exported();
  ProcessOptions options;
  options.file_size_limit = db_size + 4096;
  const ProcessResult result = setup.import(options, uri);
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err,
             Catch::Contains("cannot append to") && Catch::Contains("nothing was written"));
  CHECK(exported() == before);
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
  CHECK(setup.import({}, uri).exit_code == 0);
  CHECK(run_ledger({"verify", "--ledger", uri}).exit_code == 0);
}
