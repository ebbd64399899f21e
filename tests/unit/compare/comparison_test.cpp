// compare_sides matches cases by bench + params without dropping any, pools --base-runs,
// applies per-benchmark thresholds, notes and the environment check, and decides the gate.
#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "compare/comparison.hpp"
#include "report/compare_render.hpp"
#include "stats/detectable_change.hpp"
#include "unit/compare/comparison_fixture.hpp"

namespace cmp = benchledger::compare;
namespace bt = benchledger::testing;
using benchledger::Better;
using namespace benchledger::report;

namespace {

const cmp::CaseComparison& find(const cmp::ComparisonReport& report, const std::string& bench) {
  const auto it = std::find_if(report.cases.begin(), report.cases.end(),
                               [&](const cmp::CaseComparison& c) { return c.bench == bench; });
  if (it == report.cases.end()) FAIL("no case " << bench);
  return *it;
}

// A suite of 25 benchmarks with n samples a side: 24 unchanged, "suite/00" 51.7% slower.
bt::ComparisonFixture lone_change_suite(std::size_t n) {
  auto f = bt::comparison_fixture();
  f.base.results.clear();
  f.current.results.clear();
  f.notes.clear();
  for (std::size_t b = 0; b < 25; ++b) {
    std::vector<double> base, current;
    for (std::size_t i = 0; i < n; ++i) {
      const double scale = 1.0 + 0.01 * static_cast<double>(b);
      base.push_back(bt::steady()[(i + b) % 10] * scale);
      current.push_back(bt::steady()[(i + b + 3) % 10] * scale * (b == 0 ? 1.517 : 1.0));
    }
    const std::string name = fmt::format("suite/{:02}", b);
    f.base.results.push_back(bt::result_with(
        bt::k_base_run, fmt::format("01JDQ8Z6X0000000000000B{}", 100 + b), name, {}, base));
    f.current.results.push_back(bt::result_with(
        bt::k_current_run, fmt::format("01JDQ8Z6X0000000000000C{}", 100 + b), name, {}, current));
  }
  return f;
}

}  // namespace

TEST_CASE("every case gets the verdict its samples support") {
  const auto f = bt::comparison_fixture();
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  CHECK(report.cases.size() == 8);
  CHECK(find(report, "sort/uniform").verdict == cmp::Verdict::regression);
  CHECK(find(report, "sort/uniform").change == Approx(0.12));
  CHECK(find(report, "sort/mixed").verdict == cmp::Verdict::unchanged);
  CHECK(find(report, "io/write").verdict == cmp::Verdict::improvement);  // ops/s went up
  CHECK(find(report, "sqlite/insert").verdict == cmp::Verdict::inconclusive);
  CHECK(find(report, "sqlite/insert").detectable.has_value());
  CHECK(find(report, "pipeline/fetch").verdict == cmp::Verdict::regression);
  CHECK(report.count(cmp::Verdict::regression) == 3);  // net/ping by threshold, two tested
}

TEST_CASE("unmatched cases are reported as new or missing, never dropped") {
  const auto f = bt::comparison_fixture();
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  const auto& missing = find(report, "old/case");
  CHECK(missing.verdict == cmp::Verdict::missing);
  CHECK(missing.current_n == 0);
  CHECK(missing.base_n == 10);
  CHECK(find(report, "new/case").verdict == cmp::Verdict::new_case);
  CHECK(report.count(cmp::Verdict::missing) == 1);
  CHECK(report.count(cmp::Verdict::new_case) == 1);
}

TEST_CASE("fewer than 3 samples a side leaves only the threshold, and says so") {
  const auto f = bt::comparison_fixture();
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  const auto& ping = find(report, "net/ping");
  CHECK(ping.threshold_only);
  CHECK(ping.verdict == cmp::Verdict::regression);
  CHECK_FALSE(ping.p.has_value());
  CHECK_FALSE(ping.ci_low.has_value());
  CHECK_THAT(ping.remark,
             Catch::Contains("too few samples") && Catch::Contains("only the threshold applies"));
}

TEST_CASE("an accept-regression note shows the regression as accepted and passes the gate") {
  auto f = bt::comparison_fixture();
  cmp::CompareOptions options;
  auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  const auto& fetch = find(report, "pipeline/fetch");
  REQUIRE(fetch.accepted != nullptr);
  CHECK(fetch.accepted->author == "ada");
  CHECK_FALSE(fetch.fails_on_verdict);
  CHECK(find(report, "sort/uniform").fails_on_verdict);
  CHECK_FALSE(report.gate_pass);
  CHECK(report.accepted == 1);

  // Without the note it fails; a note for another benchmark does not cover it.
  f.notes.front().bench = "sort/other";
  report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK_FALSE(find(report, "pipeline/fetch").accepted != nullptr);
  CHECK(find(report, "pipeline/fetch").fails_on_verdict);

  // A note on the result itself covers it too.
  f.notes.front().bench.reset();
  f.notes.front().target = "01JDQ8Z6X0000000000000C106";
  report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK(find(report, "pipeline/fetch").accepted != nullptr);
}

TEST_CASE("the gate fails on the verdicts asked for and passes otherwise") {
  auto f = bt::comparison_fixture();
  // Keep only the unchanged, new and missing cases.
  const auto keep = [](std::vector<benchledger::ResultRecord>& results) {
    std::erase_if(results, [](const auto& r) {
      return r.bench != "sort/mixed" && r.bench != "old/case" && r.bench != "new/case";
    });
  };
  keep(f.base.results);
  keep(f.current.results);
  cmp::CompareOptions options;
  // A missing case fails the gate by default; a new one never does unless asked.
  auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK_FALSE(report.gate_pass);
  CHECK(find(report, "old/case").fails_on_verdict);
  CHECK_FALSE(find(report, "new/case").fails_on_verdict);
  options.allow_missing = true;
  CHECK(cmp::compare_sides(f.base, f.current, f.notes, options).gate_pass);
  options.fail_on = {cmp::Verdict::new_case};
  report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK_FALSE(report.gate_pass);
  CHECK_FALSE(find(report, "old/case").fails_on_verdict);
  CHECK(find(report, "new/case").fails_on_verdict);
  options.fail_on = {cmp::Verdict::missing};
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("--allow-missing and --fail-on missing"));
}

TEST_CASE("per-benchmark thresholds from the config apply by exact name or glob") {
  const auto f = bt::comparison_fixture();
  cmp::CompareOptions options;
  options.config.thresholds = {{"sort/*", 20.0}, {"net/ping", 25.0}};
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  const auto& uniform = find(report, "sort/uniform");
  CHECK(uniform.threshold == Approx(0.20));
  CHECK(uniform.verdict == cmp::Verdict::unchanged);  // +12% lies inside +-20%
  CHECK(find(report, "net/ping").verdict == cmp::Verdict::unchanged);
  CHECK(find(report, "sqlite/insert").threshold == Approx(0.05));
}

TEST_CASE("--base-runs pools the samples of every base run") {
  auto f = bt::comparison_fixture();
  benchledger::RunRecord older = bt::sample_run("01JDQ8Z6X00000000000000Q1D", "baseline");
  older.warnings.clear();
  f.base.runs.push_back(older);
  f.base.results.push_back(bt::result_with(older.header.id, "01JDQ8Z6X0000000000000Q001",
                                           "sort/uniform", {{"n", std::int64_t{2000}}},
                                           bt::scaled(bt::steady(), 1.01)));
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  CHECK(find(report, "sort/uniform").base_n == 20);
  CHECK(find(report, "sort/mixed").base_n == 10);
  CHECK(report.base.size() == 2);
}

TEST_CASE("differing fingerprints are a warning naming the fields, or an error when required") {
  auto f = bt::comparison_fixture();
  auto& env = f.current.runs.front().env;
  env.os.kernel = "6.9.0-test";
  env.cpu.model = "Intel Xeon";
  env.fingerprint = std::string(64, 'b');
  cmp::CompareOptions options;
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings.front(), Catch::Contains("environments differ") &&
                                          Catch::Contains("cpu.model") &&
                                          Catch::Contains("os.kernel"));
  CHECK(report.env_differences.size() == 2);
  CHECK_THAT(render_comparison_markdown(report), Catch::Contains("os.kernel"));
  CHECK_THAT(render_comparison_table(report, false), Catch::Contains("os.kernel"));
  CHECK_THAT(render_comparison_junit(report), Catch::Contains("os.kernel"));
  CHECK_THAT(render_comparison_json(report), Catch::Contains("os.kernel"));
  options.require_same_env = true;
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("--require-same-env") && Catch::Contains("cpu.model"));
}

TEST_CASE("an invalidated result is left out of the comparison") {
  auto f = bt::comparison_fixture();
  benchledger::NoteRecord invalidate;
  invalidate.header.id = "01JDQ8Z6X00000000000000N1V";
  invalidate.kind = benchledger::NoteKind::invalidate;
  invalidate.target = "01JDQ8Z6X0000000000000C101";  // current sort/uniform
  f.notes.push_back(invalidate);
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  CHECK(find(report, "sort/uniform").verdict == cmp::Verdict::missing);
}

TEST_CASE("the same inputs in any order give byte-identical output") {
  const auto f = bt::comparison_fixture();
  const std::string first =
      render_comparison_json(cmp::compare_sides(f.base, f.current, f.notes, {}));
  auto shuffled = f;
  std::mt19937_64 engine(7);
  std::shuffle(shuffled.base.results.begin(), shuffled.base.results.end(), engine);
  std::shuffle(shuffled.current.results.begin(), shuffled.current.results.end(), engine);
  const auto report = cmp::compare_sides(shuffled.base, shuffled.current, shuffled.notes, {});
  CHECK(render_comparison_json(report) == first);
  CHECK(render_comparison_csv(report) ==
        render_comparison_csv(cmp::compare_sides(f.base, f.current, f.notes, {})));
}

TEST_CASE("metrics are chosen by name, and an unknown one is an error") {
  const auto f = bt::comparison_fixture();
  cmp::CompareOptions options;
  options.metrics = {"throughput"};
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  REQUIRE(report.cases.size() == 1);
  CHECK(report.cases.front().bench == "io/write");
  options.metrics = {"nope"};
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("no case of either run has the metric \"nope\""));
  options.metrics.clear();
  options.alpha = 1.5;
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("--alpha 1.5 is outside (0, 1)"));
}

TEST_CASE("a side without a run is an error") {
  const auto f = bt::comparison_fixture();
  CHECK_THROWS_WITH(cmp::compare_sides({}, f.current, f.notes, {}),
                    Catch::Contains("base side has no run"));
}

TEST_CASE("sizes that cannot reach significance among the comparisons say so and what would") {
  // An audit of the verdicts: 6 a side among 25 comparisons, a +51.7% change. The smallest p 6
  // against 6 can give is 2 / C(12, 6) = 0.0022; a lone discovery among 25 needs 0.05 / 25 = 0.002.
  const auto f = lone_change_suite(6);
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  const auto& changed = find(report, "suite/00");
  CHECK(changed.change == Approx(0.517).margin(0.01));
  CHECK(*changed.ci_low > 0.4);
  CHECK(changed.verdict == cmp::Verdict::inconclusive);
  CHECK(*changed.p_adjusted > 0.05);
  REQUIRE(changed.detectable.has_value());
  CHECK(std::isinf(*changed.detectable));
  CHECK_THAT(changed.remark,
             Catch::Contains("6 samples a side cannot reach significance among 25 comparisons") &&
                 Catch::Contains("needed <= 0.002)") && Catch::Contains("need >= 7 a side"));
  CHECK_THAT(render_comparison_table(report, false),
             Catch::Contains("cannot reach significance") && !Catch::Contains("could detect"));
  for (const std::string& out : {render_comparison_json(report), render_comparison_csv(report)}) {
    CHECK_THAT(out, Catch::Contains("6 samples a side cannot reach significance among 25 "
                                    "comparisons") &&
                        Catch::Contains("need >= 7 a side"));
  }
  // Markdown escapes the `>`, which renders as itself.
  CHECK_THAT(render_comparison_markdown(report),
             Catch::Contains("6 samples a side cannot reach significance among 25 comparisons") &&
                 Catch::Contains("need \\>= 7 a side"));
  CHECK_THAT(render_comparison_junit(report), Catch::Contains("need &gt;= 7 a side"));

  // The N it names is enough: 7 a side makes the same change a regression.
  const auto seven = lone_change_suite(7);
  const auto enough = cmp::compare_sides(seven.base, seven.current, seven.notes, {});
  CHECK(find(enough, "suite/00").verdict == cmp::Verdict::regression);
  CHECK(find(enough, "suite/00").remark.empty());

  // Brunner–Munzel has no such bound (nearly separated samples reach smaller p-values than
  // separated ones), so with it nothing claims the sizes cannot reach significance.
  cmp::CompareOptions brunner_munzel;
  brunner_munzel.test = cmp::DecidingTest::brunner_munzel;
  const auto bm = cmp::compare_sides(f.base, f.current, f.notes, brunner_munzel);
  CHECK_THAT(find(bm, "suite/00").remark, !Catch::Contains("cannot reach significance"));
}

TEST_CASE("the detectable change is computed at the level the adjustment demands") {
  const auto f = bt::comparison_fixture();
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  // Five metrics are tested; three of the others are discoveries, so sqlite/insert would have
  // been the fourth: it needed p <= 4 * 0.05 / 5 = 0.04, not 0.05.
  const auto& insert = find(report, "sqlite/insert");
  REQUIRE(insert.detectable.has_value());
  const std::vector<double> noisy{100, 92, 109, 97, 104, 88, 112, 95, 103, 99};
  const double spread = benchledger::stats::pooled_log_stddev(noisy, bt::scaled(noisy, 1.04));
  CHECK(*insert.detectable ==
        Approx(benchledger::stats::minimal_detectable_change(10, 10, spread, 0.04)));
  CHECK(*insert.detectable >
        benchledger::stats::minimal_detectable_change(10, 10, spread, 0.05) * 1.01);
}

TEST_CASE("a regression fails the gate whatever --fail-on adds") {
  const auto f = bt::comparison_fixture();
  cmp::CompareOptions options;
  options.fail_on = {cmp::Verdict::inconclusive};
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK_FALSE(report.gate_pass);
  CHECK(find(report, "sort/uniform").fails_on_verdict);          // regression
  CHECK(find(report, "sqlite/insert").fails_on_verdict);         // inconclusive, added
  CHECK_FALSE(find(report, "pipeline/fetch").fails_on_verdict);  // accepted regression
  CHECK(report.fail_on == std::vector{cmp::Verdict::failed, cmp::Verdict::regression,
                                      cmp::Verdict::missing, cmp::Verdict::inconclusive});
}

TEST_CASE("node, python and PostgreSQL versions are compared field by field, unless ignored") {
  auto f = bt::comparison_fixture();
  auto& base = f.base.runs.front().env.runtimes;
  auto& current = f.current.runs.front().env.runtimes;
  base.node = "v18.19.0";
  current.node = "v20.11.1";
  base.postgres_client = "psql (PostgreSQL) 13.14";
  current.postgres_client = "psql (PostgreSQL) 15.6";
  // The fingerprint hashes neither: compare must not stop at equal fingerprints.
  REQUIRE(f.base.runs.front().env.fingerprint == f.current.runs.front().env.fingerprint);
  cmp::CompareOptions options;
  auto report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK(report.env_differences ==
        std::vector<std::string>{R"(runtimes.node: "v18.19.0" -> "v20.11.1")",
                                 R"(runtimes.postgres_client: "psql (PostgreSQL) 13.14" -> )"
                                 R"("psql (PostgreSQL) 15.6")"});
  for (const std::string& text :
       {render_comparison_table(report, false), render_comparison_junit(report),
        render_comparison_json(report)}) {
    CHECK_THAT(text,
               Catch::Contains("runtimes.node") && Catch::Contains("runtimes.postgres_client"));
  }
  // Markdown escapes the `_`, which renders as itself.
  CHECK_THAT(render_comparison_markdown(report),
             Catch::Contains("runtimes.node") && Catch::Contains("runtimes.postgres\\_client"));
  options.require_same_env = true;
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("--require-same-env") && Catch::Contains("runtimes.node"));
  // benchledger.json's environment.ignore leaves fields out; a name compare does not know is an
  // error that names the file.
  options.config.path = "/repo/benchledger.json";
  options.config.environment_ignore = {"runtimes.node", "runtimes.postgres_client"};
  report = cmp::compare_sides(f.base, f.current, f.notes, options);
  CHECK(report.env_differences.empty());
  options.config.environment_ignore = {"runtimes.pyton"};
  CHECK_THROWS_WITH(cmp::compare_sides(f.base, f.current, f.notes, options),
                    Catch::Contains("/repo/benchledger.json: environment.ignore") &&
                        Catch::Contains("\"runtimes.pyton\" is not a compared field"));
}

TEST_CASE("a unit that changed is converted when it can be, and each side shows its own") {
  auto f = bt::comparison_fixture();
  f.base.results.clear();
  f.current.results.clear();
  // About 1,005 ns a run, then the same in µs; then ns against a count, which do not convert.
  f.base.results.push_back(bt::result_with(bt::k_base_run, "01JDQ8Z6X0000000000000B901", "a", {},
                                           bt::scaled(bt::steady(), 10.04), Better::lower, "ns"));
  f.current.results.push_back(bt::result_with(bt::k_current_run, "01JDQ8Z6X0000000000000C901", "a",
                                              {}, bt::scaled(bt::steady(), 0.01004), Better::lower,
                                              "us"));
  f.base.results.push_back(bt::result_with(bt::k_base_run, "01JDQ8Z6X0000000000000B902", "b", {},
                                           bt::steady(), Better::lower, "ns"));
  f.current.results.push_back(bt::result_with(bt::k_current_run, "01JDQ8Z6X0000000000000C902", "b",
                                              {}, bt::steady(), Better::lower, "count"));
  const auto report = cmp::compare_sides(f.base, f.current, f.notes, {});
  const auto& a = find(report, "a");
  CHECK(a.base_unit == "ns");
  CHECK(a.unit == "us");
  CHECK(a.verdict == cmp::Verdict::unchanged);
  CHECK(*a.change == Approx(0.0).margin(1e-9));
  const auto& b = find(report, "b");
  CHECK(b.verdict == cmp::Verdict::inconclusive);
  CHECK_THAT(b.remark, Catch::Contains("unit or direction changed (ns lower -> count lower)"));
  // The base column in the base's unit: 1,005.5 ns is 1.01 µs, as the current 1.0055 µs is,
  // never "1006 us"; a count prints without a unit.
  const std::string table = render_comparison_table(report, false);
  // Aligned by display width: µs is one column, not two bytes.
  CHECK_THAT(table, Catch::Contains("1.01 µs (n=10)  1.01 µs (n=10)"));
  CHECK_THAT(table, Catch::Contains("100 ns (n=10)      100 (n=10)"));
  CHECK_THAT(table, !Catch::Contains("1006"));
}

TEST_CASE("sides read into SideResults compare exactly as the records they were read from") {
  auto f = bt::comparison_fixture();
  // A second metric on one result, a result that failed with its message, a result invalidated.
  f.current.results[0].metrics["memory"] =
      benchledger::metric_from_samples("B", Better::lower, {10.0, 11.0, 12.0});
  f.base.results.push_back(bt::result_with(bt::k_base_run, "01JDQ8Z6X0000000000000B950",
                                           "crash/case", {}, bt::steady()));
  benchledger::ResultRecord failed =
      bt::result_with(bt::k_current_run, "01JDQ8Z6X0000000000000C950", "crash/case", {}, {1.0});
  failed.metrics = {{"failed", benchledger::metric_from_samples("count", Better::lower, {1.0})}};
  failed.primary = "failed";
  failed.header.extra = {{"failure", {{"kind", "crashed"}, {"message", "signal 11"}}}};
  f.current.results.push_back(failed);
  benchledger::NoteRecord invalidate = f.notes.front();
  invalidate.header.id = "01JDQ8Z6X00000000000000N1T";
  invalidate.kind = benchledger::NoteKind::invalidate;
  invalidate.target = f.base.results[1].header.id;
  f.notes.push_back(invalidate);

  const auto read = [](const cmp::Side& side, cmp::SideResults::Kept kept) {
    cmp::ComparedSide out{side.runs, cmp::SideResults(std::move(kept))};
    for (const benchledger::ResultRecord& result : side.results) out.results.add(result);
    return out;
  };
  const auto report_json = [](const cmp::ComparisonReport& report) {
    return render_comparison_json(report);
  };

  const std::string expected = report_json(cmp::compare_sides(f.base, f.current, f.notes, {}));
  CHECK_THAT(expected, Catch::Contains("signal 11"));
  CHECK(report_json(cmp::compare_sides(read(f.base, {false, {}}), read(f.current, {false, {}}),
                                       f.notes, {})) == expected);
  CHECK(report_json(cmp::compare_sides(read(f.base, {}), read(f.current, {}), f.notes, {})) ==
        expected);

  cmp::CompareOptions memory;
  memory.metrics = {"memory", "time"};
  const std::string named = report_json(cmp::compare_sides(f.base, f.current, f.notes, memory));
  CHECK_THAT(named, Catch::Contains("\"metric\": \"memory\""));
  CHECK(report_json(cmp::compare_sides(read(f.base, {false, memory.metrics}),
                                       read(f.current, {false, memory.metrics}), f.notes,
                                       memory)) == named);
}
