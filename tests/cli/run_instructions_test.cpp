// `run --measure instructions` counts under the real Valgrind: a native case and a command
// counted twice agree within the jitter docs/engine.md states, a native case's set-up is not
// counted (nor in its profile) but its worker threads are, 1% more work is a regression with one
// sample a side, a counted command's --prepare and --cleanup run around its count as around its
// timed runs, and a missing Valgrind or a refused hardware counter is an exit-2 refusal, never a
// fallback to time.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include <catch2/catch.hpp>

#include "run_support.hpp"

using namespace benchledger::run_test;
using nlohmann::json;

namespace {

// Run-to-run jitter of a count under callgrind, as docs/engine.md measured it: far below the
// 0.5% default threshold.
constexpr double k_documented_jitter = 0.001;

Invocation run_with_env(const std::string& program, const std::vector<std::string>& args,
                        std::vector<std::string> env) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  benchledger::test_support::ProcessOptions options;
  options.env = std::move(env);
  options.hang_guard_seconds = 600;
  return benchledger::test_support::run_process(argv, options);
}

// The result of `count/loop` with `setup` in the last run of the ledger.
json result_of(const std::filesystem::path& ledger, int setup) {
  const auto records = read_ledger(ledger);
  json found;
  for (const json& r : results_of(records)) {
    if (r["bench"] == "count/loop" && r["params"]["setup"] == setup) found = r;
  }
  REQUIRE(found.is_object());
  return found;
}

// Why this kernel refuses the hardware counter of instructions (strerror of perf_event_open),
// or nothing when it opens it.
std::optional<std::string> perf_refusal() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) return std::string(std::strerror(errno));
  ::close(static_cast<int>(fd));
  return std::nullopt;
}

double relative_difference(double a, double b) {
  return std::abs(a - b) / std::max(a, b);
}

}  // namespace

TEST_CASE("a native case counted twice gives the same instructions and its set-up is not counted") {
  ScratchDir dir;
  const auto first = dir.path() / "first.ndjson";
  const auto second = dir.path() / "second.ndjson";
  for (const auto& ledger : {first, second}) {
    const auto r = run(RUN_INSTRUCTIONS_FIXTURE,
                       {"--ledger", ledger.string(), "--measure", "instructions", "--quiet"});
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  const json a = result_of(first, 0);
  const json b = result_of(second, 0);
  const json& metric = a["metrics"]["instructions"];
  CHECK(a["primary"] == "instructions");
  CHECK(metric["unit"] == "count");
  CHECK(metric["better"] == "lower");
  CHECK(metric["deterministic"] == true);
  CHECK(metric["counter"] == "valgrind");
  CHECK(a["metrics"]["estimated_cycles"]["deterministic"] == true);
  CHECK(a["metrics"].contains("time") == false);
  CHECK(a["ops"] == 5000);  // 5 repetitions of 1,000 operations
  // 100 iterations of a body of a few instructions each.
  CHECK(metric["value"].get<double>() > 300);
  CHECK(metric["value"].get<double>() < 2000);
  CHECK(relative_difference(metric["value"], b["metrics"]["instructions"]["value"]) <=
        k_documented_jitter);
  // Two million set-up steps (about 10 million instructions, 2,000 per measured operation)
  // outside the measured repetitions count nothing.
  const json heavy = result_of(first, 2000000);
  CHECK(relative_difference(metric["value"], heavy["metrics"]["instructions"]["value"]) <=
        k_documented_jitter);
  // Its profile (docs/profiles.md) is per operation too, and only of the measured repetitions:
  // the case's own function holds nearly all of it, and the functions add up to the count.
  const json profile =
      json::parse(read_file(first.string() + ".artifacts/" + a["profile"].get<std::string>()));
  CHECK(profile["functions"].at(0)["name"] == "(anonymous namespace)::loop(benchledger::State&)");
  CHECK(profile["functions"].at(0)["self"]["instructions"].get<double>() >
        0.9 * metric["value"].get<double>());
  CHECK(profile["total"]["instructions"].get<double>() == Approx(metric["value"].get<double>()));
}

TEST_CASE("a command counted twice gives the same instructions") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  std::vector<double> counts;
  for (int i = 0; i < 2; ++i) {
    const auto r = run_cli({"run", "--ledger", ledger.string(), "--measure", "instructions",
                            "--quiet", "--name", "ls", "--", "/bin/ls", "-l", "/usr"});
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  for (const json& r : results_of(read_ledger(ledger))) {
    CHECK(r["primary"] == "instructions");
    CHECK(r["ops"] == 1);
    CHECK(r["metrics"]["instructions"]["counter"] == "valgrind");
    counts.push_back(r["metrics"]["instructions"]["value"].get<double>());
  }
  REQUIRE(counts.size() == 2);
  CHECK(counts[0] > 100000);  // ls starts the dynamic loader and libc: far more than 100k
  CHECK(relative_difference(counts[0], counts[1]) <= k_documented_jitter);
}

TEST_CASE("a command that fails under callgrind records the last lines of its stderr") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto r =
      run_cli({"run", "--ledger", ledger.string(), "--measure", "instructions", "--quiet", "--name",
               "fails", "--shell", "--", "echo 'cannot open the input' >&2; exit 3"});
  INFO(r.err);
  CHECK(r.status == 1);  // a case failed
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["primary"] == "failed");
  CHECK(results[0]["failure"]["stderr"] == "cannot open the input");
}

TEST_CASE("a program Valgrind cannot decode fails its count saying that Valgrind is the cause") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto r =
      run_cli({"run", "--ledger", ledger.string(), "--measure", "instructions", "--quiet", "--runs",
               "2", "--name", "enter", "--", VALGRIND_UNKNOWN_INSTRUCTION_FIXTURE});
  INFO(r.err);
  CHECK(r.status == 1);  // a case failed: in its count, after its timed runs passed
  const auto results = results_of(read_ledger(ledger));
  REQUIRE(results.size() == 1);
  CHECK(results[0]["failure"]["kind"] == "crashed");
  const std::string message = results[0]["failure"]["message"];
  CHECK_THAT(message, Catch::StartsWith("under callgrind, killed by signal 4 (SIGILL): Valgrind "
                                        "cannot decode an instruction the program uses"));
  CHECK_THAT(message, Catch::Contains("Illegal opcode"));
}

TEST_CASE("a counted command runs its --prepare before and its --cleanup after the count") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto log = dir.path() / "steps.log";
  const auto r = run_cli({"run", "--ledger", ledger.string(), "--measure", "instructions", "--name",
                          "steps", "--prepare", "echo prepare >> " + log.string(), "--cleanup",
                          "echo cleanup >> " + log.string() + "; exit 4", "--", "/bin/true"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(read_file(log) == "prepare\ncleanup\n");
  CHECK_THAT(r.err, Catch::Contains("--cleanup exited with status 4"));
}

TEST_CASE("1% more work is a regression with one sample a side, the same work unchanged") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto record = [&](const char* label, const char* iterations) {
    const auto r = run_with_env(RUN_INSTRUCTIONS_FIXTURE,
                                {"--ledger", ledger.string(), "--measure", "instructions",
                                 "--label", label, "--quiet", "--filter", "setup=0"},
                                {std::string("FIXTURE_ITERATIONS=") + iterations});
    INFO(r.err);
    REQUIRE(r.status == 0);
  };
  const auto verdict = [&](const Invocation& r) {
    INFO(r.out << r.err);
    const json report = json::parse(r.out);
    REQUIRE(report["cases"].size() == 1);
    CHECK(report["cases"][0]["deterministic"] == true);
    CHECK(report["cases"][0]["base"]["n"] == 1);
    return report["cases"][0]["verdict"].get<std::string>();
  };
  record("baseline", "100");
  record("same", "100");
  record("more", "101");
  const auto same =
      run_cli({"compare", "baseline", "same", "--ledger", ledger.string(), "--format", "json"});
  CHECK(verdict(same) == "unchanged");
  CHECK(same.status == 0);
  const auto more =
      run_cli({"compare", "baseline", "more", "--ledger", ledger.string(), "--format", "json"});
  CHECK(verdict(more) == "regression");
  CHECK(more.status == 1);
  // A threshold above the change lets it pass.
  const auto loose = run_cli({"compare", "baseline", "more", "--ledger", ledger.string(),
                              "--format", "json", "--deterministic-threshold", "2"});
  CHECK(verdict(loose) == "unchanged");
  CHECK(json::parse(loose.out)["options"]["deterministic_threshold"] == 2.0);
  // The table's settings line names the threshold that decided.
  const auto table = run_cli({"compare", "baseline", "more", "--ledger", ledger.string()});
  CHECK_THAT(table.out, Catch::Contains("threshold 5% (0.5% alone for deterministic counts)"));
}

TEST_CASE("without valgrind in PATH, counting instructions is refused with exit 2") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{cli(), "run", "--measure", "instructions", "--", "/bin/true"},
        std::vector<std::string>{RUN_INSTRUCTIONS_FIXTURE, "--measure", "instructions"}}) {
    std::vector<std::string> rest(args.begin() + 1, args.end());
    rest.insert(rest.end(), {"--ledger", ledger.string()});
    const auto r = run_with_env(args[0], rest, {"PATH=" + (dir.path() / "empty").string()});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("valgrind is not in PATH") &&
                          Catch::Contains("install Debian's valgrind package"));
    CHECK_FALSE(std::filesystem::exists(ledger));  // nothing measured, nothing appended
  }
}

TEST_CASE("forcing hardware counters fails with the kernel's reason where it refuses them") {
  ScratchDir dir;
  const auto ledger = dir.path() / "ledger.ndjson";
  const auto reason = perf_refusal();
  const auto r = run(RUN_INSTRUCTIONS_FIXTURE, {"--ledger", ledger.string(), "--measure",
                                                "instructions:perf", "--filter", "setup=0"});
  INFO(r.err);
  if (reason) {
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("this kernel refuses hardware counters") &&
                          Catch::Contains(*reason) && Catch::Contains("perf_event_paranoid"));
  } else {
    CHECK(r.status == 0);
    CHECK(result_of(ledger, 0)["metrics"]["instructions"]["counter"] == "perf");
  }
  // Commands are counted under Valgrind only, whatever the kernel allows.
  const auto command = run_cli(
      {"run", "--ledger", ledger.string(), "--measure", "instructions:perf", "--", "/bin/true"});
  CHECK(command.status == 2);
  CHECK_THAT(command.err, Catch::Contains("commands are counted under Valgrind only"));
}

TEST_CASE("a native case's worker threads are all counted, by callgrind and by hardware counters") {
  for (const std::string counter : {"valgrind", "perf"}) {
    INFO(counter);
    ScratchDir dir;
    const auto ledger = dir.path() / "ledger.ndjson";
    const auto r = run(RUN_INSTRUCTIONS_FIXTURE,
                       {"--ledger", ledger.string(), "--measure", "instructions:" + counter,
                        "--filter", "count/(threads|ops)", "--quiet"});
    INFO(r.err);
    const auto reason = counter == "perf" ? perf_refusal() : std::nullopt;
    if (reason) {
      // Where the kernel refuses hardware counters (this project's VM), the refusal is the
      // documented one, and nothing is measured.
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Catch::Contains("--measure instructions:perf: this kernel refuses "
                                        "hardware counters: perf_event_open: " +
                                        *reason) &&
                            Catch::Contains("use instructions:valgrind (nothing was measured)"));
      CHECK_FALSE(std::filesystem::exists(ledger));
      continue;
    }
    REQUIRE(r.status == 0);
    std::map<std::pair<std::string, std::int64_t>, json> found;
    for (const json& result : results_of(read_ledger(ledger))) {
      found[{result["bench"].get<std::string>(),
             result["params"]["concurrency"].get<std::int64_t>()}] = result;
    }
    REQUIRE(found.size() == 4);
    const auto per_op = [](const json& result) {
      return result["metrics"]["instructions"]["value"].get<double>();
    };
    const json& one = found.at({"count/threads", 1});
    const json& two = found.at({"count/threads", 2});
    CHECK(one["metrics"]["instructions"]["counter"] == counter);
    // BENCH: two workers each run the loop one worker runs at concurrency 1, twice the
    // operations and twice the instructions. Counting only the thread that opened the counters
    // (perf without inherit) or the one that switched collection on (callgrind) gave about half
    // the instructions per operation, or none.
    CHECK(two["ops"].get<double>() == 2 * one["ops"].get<double>());
    CHECK(per_op(two) * two["ops"].get<double>() ==
          Approx(2 * per_op(one) * one["ops"].get<double>()).epsilon(0.1));
    // OPS: two persistent workers share each batch; only the thread that waits for them is not
    // one of them (it counted 4 instructions an operation under callgrind).
    CHECK(per_op(found.at({"count/ops", 2})) ==
          Approx(per_op(found.at({"count/ops", 1}))).epsilon(0.1));
  }
}
