// No file crashes `benchledger run --import`: arrays, objects or XML elements nested deeper than
// 512 levels, and numbers no double holds (1e400, -1e400, a 400-digit integer), are refused by
// every importer, named or detected by `--import auto`, with exit 2 naming the file and the place.
#include <catch2/catch.hpp>

#include <algorithm>

#include "run_support.hpp"

using namespace benchledger::run_test;

namespace {

// Deep enough to have overflowed the stack before the limit (the shallowest crash found was
// 20,000 levels), and 600 KB: refused after its first 513 levels, so quick.
constexpr std::size_t k_deep = 300000;

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// A harness's file with `@` standing for a value at `path` (a JSON path as messages write it).
struct Shape {
  std::string format;  // for --import
  std::string text;
  std::string path;
};

std::string with_value(std::string text, const std::string& value) {
  return text.replace(text.find('@'), 1, value);
}

// Each JSON format's output with a deep value where the format has a free-form field, and with a
// number where it has a measurement.
std::vector<Shape> deep_shapes() {
  return {
      {"google-benchmark",
       R"({"context":{"executable":@},"benchmarks":[{"name":"BM","run_type":"iteration",)"
       R"("iterations":1,"real_time":1,"time_unit":"ns"}]})",
       "context.executable"},
      {"hyperfine", R"({"results":[{"command":"true","mean":1,"times":[1],"parameters":@}]})",
       "results[0].parameters"},
      {"pytest-benchmark",
       R"({"machine_info":{},"commit_info":@,"benchmarks":[{"name":"t","stats":{"mean":1}}]})",
       "commit_info"},
      {"pyperf", R"({"metadata":{"name":@},"benchmarks":[{"runs":[{"values":[1]}]}]})",
       "metadata.name"},
      {"asv", R"({"result_columns":["result"],"results":{},"requirements":@,"env_vars":{}})",
       "requirements"},
      {"asv", R"({"result_columns":["result"],"results":{},"requirements":{},"env_vars":@})",
       "env_vars"},
      {"mitata", R"({"layout":@,"benchmarks":[],"context":{}})", "layout"},
      {"criterion", R"({"reason":"benchmark-complete","id":"g/f","unit":"ns","measured_values":@})",
       "measured_values"},
      {"jmh",
       R"([{"jmhVersion":"1.37","benchmark":"b.B.m","jvmArgs":@,"primaryMetric":{"score":1}}])",
       "[0].jvmArgs"},
      {"vitest", R"({"files":[{"filepath":"a.ts","groups":[{"fullName":@,"benchmarks":[]}]}]})",
       "files[0].groups[0].fullName"},
      {"tinybench", R"([{"name":"n","result":{"state":"completed","samples":@}}])",
       "[0].result.samples"},
  };
}

std::vector<Shape> number_shapes() {
  return {
      {"google-benchmark",
       R"({"context":{"executable":"x"},"benchmarks":[{"name":"BM","run_type":"iteration",)"
       R"("iterations":1,"real_time":@,"time_unit":"ns"}]})",
       "benchmarks[0].real_time"},
      {"hyperfine", R"({"results":[{"command":"true","mean":@,"times":[1]}]})", "results[0].mean"},
      {"pytest-benchmark",
       R"({"machine_info":{},"commit_info":{},"benchmarks":[{"name":"t","stats":{"mean":@}}]})",
       "benchmarks[0].stats.mean"},
      {"pyperf", R"({"metadata":{},"benchmarks":[{"runs":[{"values":[1,@]}]}]})",
       "benchmarks[0].runs[0].values[1]"},
      {"asv", R"({"result_columns":["result"],"results":{"b":[[@]]},"requirements":{}})",
       "results.b[0][0]"},
      {"mitata", R"({"layout":[],"benchmarks":[{"alias":"x","runs":[{"stats":{"avg":@}}]}]})",
       "benchmarks[0].runs[0].stats.avg"},
      {"criterion",
       R"({"reason":"benchmark-complete","id":"g/f","unit":"ns","measured_values":[@]})",
       "measured_values[0]"},
      {"jmh", R"([{"jmhVersion":"1.37","benchmark":"b.B.m","primaryMetric":{"score":@}}])",
       "[0].primaryMetric.score"},
      {"vitest",
       R"({"files":[{"filepath":"a.ts","groups":[{"benchmarks":[{"name":"n","mean":@}]}]}]})",
       "files[0].groups[0].benchmarks[0].mean"},
      {"tinybench", R"([{"name":"n","result":{"state":"completed","mean":@}}])", "[0].result.mean"},
  };
}

// The origin an importer names: the file, and for a format read a line at a time, its line.
std::string origin_of(const Shape& shape, const std::filesystem::path& file) {
  return shape.format == "criterion" ? file.string() + ":1" : file.string();
}

// Runs `run --import` as `format` on `file`; expects exit 2 and each of `messages`.
void expect_refused(const std::string& format, const std::filesystem::path& file,
                    const std::filesystem::path& ledger, const std::vector<std::string>& messages) {
  const auto result =
      run_cli({"run", "--import", format, file.string(), "--ledger", ledger.string(), "-q"});
  INFO(format << " " << file.filename() << ": " << result.err.substr(0, 2000));
  CHECK(result.signal == 0);
  CHECK(result.exit_code == 2);
  for (const std::string& message : messages) CHECK_THAT(result.err, Catch::Contains(message));
  CHECK_FALSE(std::filesystem::exists(ledger));
}

}  // namespace

TEST_CASE("every JSON importer refuses a value nested 300,000 deep, named or detected") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  int n = 0;
  for (const Shape& shape : deep_shapes()) {
    const auto file = dir.path() / (shape.format + std::to_string(++n) + ".json");
    std::ofstream(file) << with_value(shape.text, nested_arrays(k_deep)) << "\n";
    const std::string message = origin_of(shape, file) + ": field \"" + shape.path +
                                "[0][0][0]";  // the path, cut short after a few levels
    for (const std::string& format : {shape.format, std::string("auto")}) {
      expect_refused(format, file, ledger,
                     {message, "…\": nested deeper than 512 levels of arrays and objects"});
    }
  }
}

TEST_CASE("every JSON importer refuses a number no double holds, named or detected") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const std::vector<std::pair<std::string, std::string>> numbers = {
      {"1e400", "the number 1e400"},
      {"-1e400", "the number -1e400"},
      {"1" + std::string(399, '0'), "the number 1" + std::string(39, '0') + "… (400 characters)"},
  };
  std::size_t n = 0, formats = 0;
  for (const Shape& shape : number_shapes()) {
    ++formats;
    for (std::size_t i = 0; i < numbers.size(); ++i) {
      const auto& [number, named] = numbers[i];
      const auto file = dir.path() / (shape.format + std::to_string(++n) + ".json");
      std::ofstream(file) << with_value(shape.text, number) << "\n";
      const std::string message = origin_of(shape, file) + ": field \"" + shape.path +
                                  "\": " + named +
                                  " is out of the range of a double (about ±1.8e308)";
      expect_refused(shape.format, file, ledger, {message});
      // Detected as well, each format with one of the numbers (each run costs the machine's
      // fingerprint, so not all three).
      if (i == formats % numbers.size()) expect_refused("auto", file, ledger, {message});
    }
  }
}

TEST_CASE("a mapped NDJSON log refuses a deep line and a number no double holds, naming the line") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const std::string map = "bench=.name,value=.ms,unit=ms";
  const auto import = [&](const std::filesystem::path& log, const std::string& message) {
    const auto result = run_cli({"run", "--import", "ndjson", log.string(), "--map", map,
                                 "--ledger", ledger.string(), "-q"});
    INFO(result.err.substr(0, 2000));
    CHECK(result.signal == 0);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(message));
  };
  const auto log = dir.path() / "log.ndjson";
  std::ofstream(log) << R"({"name":"a","ms":1})"
                     << "\n"
                     << R"({"name":"a","ms":)" << nested_arrays(k_deep) << "}\n";
  import(log, log.string() + ":2: field \"ms[0][0][0]");
  std::ofstream(log) << nested_arrays(k_deep) << "\n";  // a line that is not an object
  import(log, log.string() + ":1: field \"[0][0][0]");
  for (const std::string& number :
       std::vector<std::string>{"1e400", "-1e400", "1" + std::string(399, '0')}) {
    std::ofstream(log) << R"({"name":"a","ms":1})"
                       << "\n"
                       << R"({"name":"a","ms":)" << number << "}\n";
    import(log, log.string() + ":2: field \"ms\": the number " + number.substr(0, 40));
  }
}

TEST_CASE("Catch2's XML nested 30,000 or 2,000,000 elements deep is refused, named or detected") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const std::string head = R"(<?xml version="1.0" encoding="UTF-8"?>)"
                           "\n<Catch2TestRun name=\"deep\">\n<Group name=\"deep\">\n";
  std::string closed = head;
  for (int i = 0; i < 30000; ++i) closed += "<Section name=\"s\">";
  for (int i = 0; i < 30000; ++i) closed += "</Section>";
  closed += "\n</Group>\n</Catch2TestRun>\n";
  std::ofstream(dir.path() / "closed.xml") << closed;
  // 2,000,000 start tags and nothing after them: refused at the 513th, not read to the end.
  std::string open = head;
  for (int i = 0; i < 2000000; ++i) open += "<a>";
  std::ofstream(dir.path() / "open.xml") << open;
  for (const char* name : {"closed.xml", "open.xml"}) {
    const auto file = dir.path() / name;
    for (const char* format : {"catch2", "auto"}) {
      // Line 4: the elements from the root's child on are on one line; the path is cut short.
      const std::string element = name == std::string("open.xml") ? "a" : "Section";
      std::string open_path = "Catch2TestRun/Group";
      for (int i = 0; i < 4; ++i) open_path += "/" + element;
      expect_refused(
          format, file, ledger,
          {file.string() + ":4:", "<" + element + "> in " + open_path +
                                      "/… is nested deeper than 512 levels of elements"});
    }
  }
}

TEST_CASE("counts that add up or multiply past 2^63 are refused naming the field, not wrapped") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  // Two repetitions of one benchmark, each of 2^63 - 1 iterations: their sum is the result's ops.
  const std::string repetition =
      R"({"name":"BM","run_type":"iteration",)"
      R"("iterations":9223372036854775807,"real_time":1,"time_unit":"ns"})";
  const auto gbench = dir.path() / "gbench.json";
  std::ofstream(gbench) << R"({"context":{},"benchmarks":[)" << repetition << "," << repetition
                        << "]}\n";
  expect_refused("google-benchmark", gbench, ledger,
                 {gbench.string() +
                  ": field \"benchmarks[1].iterations\": the counts add up to more than 2^63"});
  // asv: two samples, each the mean of 2^63 - 1 calls.
  const auto asv = dir.path() / "asv.json";
  std::ofstream(asv)
      << R"({"version":2,"params":{},"result_columns":["result","params","stats_number","samples"],)"
      << R"("results":{"b.time_x":[[1.0],[["1"]],[9223372036854775807],[[1.0,1.5]]]}})"
      << "\n";
  expect_refused(
      "asv", asv, ledger,
      {asv.string() + ": field \"results.b.time_x[2][0]\": the counts multiply to more than 2^63"});
}
