// libFuzzer target for the importers: `--import auto`'s detection and every reader of a
// harness's text, on any bytes (and with Partial::keep_complete where a reader takes it), either
// return results or throw benchledger::Error (exit 2)
// naming the input. Anything else (a crash, a stack overflow on deep nesting, nlohmann's
// exception for a number no double holds, which the CLI reports as an internal error) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/error.hpp>

#include "import/import.hpp"

namespace {

using Reader = std::function<void()>;

void require_error_only(const Reader& read) {
  try {
    read();
  } catch (const benchledger::Error&) {
  } catch (...) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = benchledger::import;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string origin = "fuzz-input";
  const std::vector<Reader> readers = {
      [&] { import::detect_format(text, origin); },
      [&] { import::read_google_benchmark(text, origin); },
      [&] { import::read_hyperfine(text, origin); },
      [&] { import::read_pytest_benchmark(text, origin); },
      [&] { import::read_go_test(text, origin); },
      [&] { import::read_go_test(text, origin, import::Partial::keep_complete); },
      [&] { import::read_pyperf(text, origin); },
      [&] { import::read_catch2_xml(text, origin); },
      [&] { import::read_asv(text, origin, text, origin); },
      [&] { import::read_mitata(text, origin); },
      [&] { import::read_cargo_criterion(text, origin); },
      [&] { import::read_cargo_criterion(text, origin, import::Partial::keep_complete); },
      [&] { import::read_jmh(text, origin); },
      [&] { import::read_jmh(text, origin, import::Partial::keep_complete); },
      [&] { import::read_vitest(text, origin); },
      [&] { import::read_tinybench(text, origin); },
      [&] { import::read_mapped_ndjson(text, origin, "bench=.name,value=.ms,unit=ms,params=.p"); },
      [&] { import::read_mapped_csv(text, origin, "bench=.name,value=.ms,unit=ms"); },
  };
  for (const Reader& read : readers) require_error_only(read);
  return 0;
}
