// Two runs of hand-written records with every verdict in them, for the comparison and output
// tests. Samples are fixed numbers, so every figure the outputs show is reproducible.
#pragma once

#include <string>
#include <vector>

#include <benchledger/record.hpp>

#include "compare/comparison.hpp"
#include "model_fixtures.hpp"

namespace benchledger::testing {

inline ResultRecord result_with(const std::string& run, const std::string& id,
                                const std::string& bench, Params params,
                                std::vector<double> samples, Better better = Better::lower,
                                std::string unit = "ns") {
  ResultRecord r;
  r.header.id = id;
  r.header.time = "2026-11-22T04:28:00.000001Z";
  r.header.prev = std::string(k_zero_hash);
  r.run = run;
  r.bench = bench;
  r.params = std::move(params);
  const std::string metric = better == Better::lower ? "time" : "throughput";
  r.metrics = {{metric, metric_from_samples(std::move(unit), better, std::move(samples))}};
  r.primary = metric;
  r.ops = 1000;
  return r;
}

inline std::vector<double> scaled(const std::vector<double>& base, double factor) {
  std::vector<double> out;
  for (const double v : base) out.push_back(v * factor);
  return out;
}

// Ten values around 100 with 1-2% noise, no ties.
inline const std::vector<double>& steady() {
  static const std::vector<double> values{100.0, 101.2, 99.1,  100.6, 98.8,
                                          100.3, 99.6,  101.7, 99.9,  100.9};
  return values;
}

inline const char* k_base_run = "01JDQ8Z6X00000000000000BAS";
inline const char* k_current_run = "01JDQ8Z6X00000000000000CXR";

struct ComparisonFixture {
  compare::Side base, current;
  std::vector<NoteRecord> notes;
};

inline ComparisonFixture comparison_fixture() {
  ComparisonFixture f;
  f.base.runs.push_back(sample_run(k_base_run, "baseline"));
  RunRecord current = sample_run(k_current_run, "current");
  current.header.time = "2026-11-22T05:00:00.000000Z";
  current.git.commit = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed";
  current.warnings.clear();
  f.current.runs.push_back(current);
  f.base.runs.front().warnings.clear();

  const std::vector<double> noisy{100, 92, 109, 97, 104, 88, 112, 95, 103, 99};
  int next = 0;
  const auto both = [&](const std::string& bench, Params params, const std::vector<double>& base,
                        const std::vector<double>& now, Better better = Better::lower,
                        const std::string& unit = "ns") {
    ++next;
    f.base.results.push_back(result_with(k_base_run,
                                         "01JDQ8Z6X0000000000000B" + std::to_string(100 + next),
                                         bench, params, base, better, unit));
    f.current.results.push_back(result_with(k_current_run,
                                            "01JDQ8Z6X0000000000000C" + std::to_string(100 + next),
                                            bench, params, now, better, unit));
  };
  both("sort/uniform", {{"n", std::int64_t{2000}}}, steady(),
       scaled(steady(), 1.12));                                                        // regression
  both("sort/mixed", {{"n", std::int64_t{2000}}}, steady(), scaled(steady(), 1.003));  // unchanged
  both("io/write", {}, scaled(steady(), 50), scaled(steady(), 60), Better::higher,
       "ops/s");                                         // improvement
  both("net/ping", {}, {100.0, 101.0}, {120.0, 119.0});  // threshold only
  both("sqlite/insert", {{"sync", std::string("full")}}, noisy,
       scaled(noisy, 1.04));                                     // inconclusive
  both("pipeline/fetch", {}, steady(), scaled(steady(), 1.30));  // accepted
  f.base.results.push_back(
      result_with(k_base_run, "01JDQ8Z6X0000000000000B900", "old/case", {}, steady()));
  f.current.results.push_back(
      result_with(k_current_run, "01JDQ8Z6X0000000000000C900", "new/case", {}, steady()));

  NoteRecord accept;
  accept.header.id = "01JDQ8Z6X00000000000000N0T";
  accept.header.time = "2026-11-22T05:10:00.000000Z";
  accept.header.prev = std::string(k_zero_hash);
  accept.target = k_current_run;
  accept.bench = "pipeline/fetch";
  accept.kind = NoteKind::accept_regression;
  accept.text = "fetch now validates checksums; accepted in review";
  accept.author = "ada";
  f.notes.push_back(accept);
  return f;
}

}  // namespace benchledger::testing
