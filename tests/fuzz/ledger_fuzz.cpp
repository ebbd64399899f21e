// Fuzz targets of the ledger's readers: the records a BENCHLEDGER_MAIN program prints
// (`record_lines`), a whole NDJSON ledger as verify, log, show and history read it
// (`ndjson_ledger`), the files of `ledger import` (`ledger_import`) and run selectors
// (`selector`). On any bytes each returns or throws benchledger::Error; a ledger that verify
// passes is read by every other reader without an error; a selector that parses says what
// it parsed. Anything else is a finding.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <benchledger/error.hpp>
#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

#include "fuzz_targets.hpp"
#include "ledger/store_scans.hpp"
#include "model/record_lines.hpp"
#include "scratch_file.hpp"

namespace benchledger::fuzz {

void record_lines(std::string_view text) {
  require_error_only([&] {
    const auto records = model::parse_record_lines(text, "fuzz-output");
    for (const Record& record : records) static_cast<void>(serialize(record));
  });
}

namespace {

// Every reader of a store once, as the commands that do not write call them.
void read_everything(const ledger::Store& store) {
  std::int64_t records = 0;
  store.scan([&](const ledger::StoredRecord&) { return ++records < 100000; });
  store.scan_bytes([](std::int64_t, std::string_view) { return true; });
  static_cast<void>(store.log(0));
  static_cast<void>(store.notes());
  ledger::RunSelector latest;
  for (const RunRecord& run : store.find_runs(latest, 64)) {
    static_cast<void>(store.results_of(run.header.id));
    static_cast<void>(store.find_record(run.header.id));
  }
  ledger::scan_series(store, ledger::SeriesQuery{},
                      [](const RunRecord&, ResultRecord&&) { return true; });
}

}  // namespace

void ndjson_ledger(std::string_view content) {
  const auto path = write_scratch_file("ledger.ndjson", content);
  const auto store = ledger::open_store("ndjson:" + path.string());
  std::optional<ledger::VerifyReport> report;
  require_error_only([&] { report = store->verify(std::nullopt); });
  if (report && report->ok) {
    try {
      read_everything(*store);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "finding: verify passes a ledger another reader refuses: %s\n",
                   e.what());
      std::abort();
    }
  } else {
    require_error_only([&] { read_everything(*store); });
  }
}

void ledger_import(std::string_view content) {
  const auto path = write_scratch_file("import.ndjson", content);
  const ledger::ImportFiles files({path.string()});
  require_error_only([&] {
    std::size_t last = 0;
    files.each([&](Record&& record, std::size_t index) {
      last = index;
      static_cast<void>(serialize(record));
    });
    static_cast<void>(files.where(last));
  });
}

void selector(std::string_view text) {
  std::optional<ledger::RunSelector> parsed;
  require_error_only([&] { parsed = ledger::parse_run_selector(text); });
  if (!parsed) return;
  require(parsed->text == text);
  require(parsed->back >= 0);
  switch (parsed->kind) {
    case ledger::RunSelector::Kind::id:
      require(is_ulid(parsed->value) && parsed->back == 0);
      break;
    case ledger::RunSelector::Kind::git:
      require(parsed->value.size() >= 4 && parsed->value.size() <= 64);
      for (const char c : parsed->value) {
        require(std::isxdigit(static_cast<unsigned char>(c)) &&
                !std::isupper(static_cast<unsigned char>(c)));
      }
      break;
    case ledger::RunSelector::Kind::label:
      require(!parsed->value.empty() && parsed->value.size() <= 64);
      break;
    case ledger::RunSelector::Kind::latest:
      require(parsed->value.empty());
      break;
  }
}

}  // namespace benchledger::fuzz
