// `benchledger history` and `detect` on the built binary: the same series, oldest first, from
// NDJSON, SQLite and PostgreSQL under every filter, invalidated runs left out, exit 2 naming what
// matched nothing, change points named by run and 1-based position, a series too short to reach
// significance said to be so, and detect's exit 1 only for a regression in the newest --recent
// runs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;
using nlohmann::json;

namespace {

ProcessResult run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cli_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// One run of two cases (i = 0, 1) whose time metric is centred on `value`.
std::vector<Record> run_of(const std::string& label, const std::string& branch, bool dirty,
                           double value) {
  auto batch = fresh_batch(label, 2, "abcdef0123456789");
  auto& run = std::get<RunRecord>(batch[0]);
  run.git.branch = branch;
  run.git.dirty = dirty;
  for (std::size_t i = 1; i < batch.size(); ++i) {
    auto& result = std::get<ResultRecord>(batch[i]);
    result.metrics["time"] =
        metric_from_samples("ns", Better::lower, {value * 0.99, value, value * 1.01});
  }
  return batch;
}

std::vector<std::string> run_ids(const json& series) {
  std::vector<std::string> out;
  for (const auto& p : series["points"]) out.push_back(p["run"].get<std::string>());
  return out;
}

const std::string k_case0 = "executors/sort*\"i\":0*";

}  // namespace

TEST_CASE("history gives the same series from every store, oldest first, under every filter") {
  ScratchDir dir;
  std::vector<std::string> outputs;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto a = run_of("nightly", "main", false, 100);
    const auto b = run_of("other", "dev", false, 200);
    const auto c = run_of("nightly", "main", true, 110);
    const auto d = run_of("nightly", "main", false, 120);
    const auto e = run_of("nightly", "main", false, 130);
    for (const auto& batch : {a, b, c, d, e}) store->append(batch);
    NoteRecord invalidate = fresh_note(header_of(e[0]).id);
    invalidate.kind = NoteKind::invalidate;
    store->append({invalidate});
    const auto id = [](const std::vector<Record>& batch) { return header_of(batch[0]).id; };

    const auto history = [&](std::vector<std::string> args) {
      args.insert(args.begin(), {"history", "--ledger", uri, "--format", "json"});
      const ProcessResult r = run_cli(args);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      return json::parse(r.out)["series"];
    };

    const json all = history({k_case0, "--label", "nightly"});
    REQUIRE(all.size() == 1);
    CHECK(all[0]["params"]["i"] == 0);
    CHECK(run_ids(all[0]) == std::vector<std::string>{id(a), id(c), id(d)});  // e invalidated
    CHECK(all[0]["points"][0]["centre"] == 100.0);
    CHECK(all[0]["points"][0]["samples"] == 3);
    CHECK(all[0]["points"][0]["low"] == 99.0);
    CHECK(all[0]["points"][1]["dirty"] == true);
    CHECK(all[0]["points"][0]["commit"] == "abcdef0123456789");

    CHECK(history({"executors/sort"}).size() == 2);  // a bench name matches every params
    // A case key, whole or cut by a wildcard inside its params, as the docs show it.
    const auto& second = std::get<ResultRecord>(a[2]);
    const json one = history({case_key(second.bench, second.params), "--label", "nightly"});
    REQUIRE(one.size() == 1);
    CHECK(one[0]["params"]["i"] == 1);
    CHECK(run_ids(one[0]) == std::vector<std::string>{id(a), id(c), id(d)});
    CHECK(history({"executors/sort{*"}).size() == 2);
    CHECK(run_ids(history({k_case0, "--branch", "dev"})[0]) == std::vector<std::string>{id(b)});
    CHECK(run_ids(history({k_case0, "--label", "nightly", "--last", "2"})[0]) ==
          std::vector<std::string>{id(c), id(d)});
    const std::string c_time = std::get<RunRecord>(c[0]).header.time;
    CHECK(run_ids(history({k_case0, "--since", c_time})[0]) ==
          std::vector<std::string>{id(c), id(d)});
    // A filter or a CASE that matches nothing is an error that names it, not an empty history.
    const ProcessResult late =
        run_cli({"history", "--ledger", uri, k_case0, "--since", "2999-01-01"});
    CHECK(late.exit_code == 2);
    CHECK(late.out.empty());
    CHECK_THAT(late.err, Catch::Contains("no run with results in ledger") &&
                             Catch::Contains("matches --since 2999-01-01"));
    const ProcessResult nothing = run_cli({"history", "--ledger", uri, "nothing/*"});
    CHECK(nothing.exit_code == 2);
    CHECK_THAT(nothing.err, Catch::Contains("CASE \"nothing/*\" matches no case of ledger"));

    const ProcessResult bad = run_cli({"history", "--ledger", uri, "--since", "yesterday"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--since yesterday: expected a date"));

    for (const std::string format : {"table", "md", "csv"}) {
      const ProcessResult r =
          run_cli({"history", "--ledger", uri, "--format", format, k_case0, "--label", "nightly"});
      CHECK(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains(id(d)));
      CHECK_THAT(r.out, Catch::Contains(format == "csv" ? "abcdef0123456789,true" : "+dirty"));
    }
    // Run ids differ between stores: compare the series with them blanked.
    json same = all;
    for (auto& p : same[0]["points"]) p.erase("run"), p.erase("time");
    outputs.push_back(same.dump());
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK(outputs[0] == outputs[2]);
}

TEST_CASE("detect finds a step at its run and exits 1 only while it is among the --recent runs") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    std::vector<std::string> ids;
    for (int i = 0; i < 60; ++i) {
      // A fixed, noisy-looking pattern; +20% from run 40 on.
      const double value = (i >= 40 ? 120 : 100) + (i * 7 % 5) * 0.4;
      const auto batch = run_of("nightly", "main", false, value);
      store->append(batch);
      ids.push_back(header_of(batch[0]).id);
    }
    const ProcessResult r = run_cli({"detect", "--ledger", uri, k_case0, "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json cases = json::parse(r.out)["cases"];
    REQUIRE(cases.size() == 1);
    CHECK(cases[0]["points"] == 60);
    REQUIRE(cases[0]["change_points"].size() == 1);
    const json& cp = cases[0]["change_points"][0];
    CHECK(cp["position"] == 41);  // the 41st run, the first at +20%
    CHECK_FALSE(cp.contains("index"));
    CHECK(cp["run"] == ids[40]);
    CHECK(cases[0]["remark"].is_null());
    // Every format names it by its run and 1-based position.
    const ProcessResult table = run_cli({"detect", "--ledger", uri, k_case0});
    CHECK_THAT(table.out, Catch::Contains(ids[40] + "  41 of 60  "));
    const ProcessResult md = run_cli({"detect", "--ledger", uri, k_case0, "--format", "md"});
    CHECK_THAT(md.out, Catch::Contains("| run | position |") &&
                           Catch::Contains("| `" + ids[40] + "` | 41 of 60 |"));
    CHECK(cp["verdict"] == "regression");
    CHECK(cp["change"].get<double>() == Approx(0.2).epsilon(0.02));

    CHECK(run_cli({"detect", "--ledger", uri, k_case0, "--recent", "20"}).exit_code == 1);
    CHECK(run_cli({"detect", "--ledger", uri, k_case0, "--recent", "19"}).exit_code == 0);
    // Above the change, as --min-change, nothing is found.
    const ProcessResult high =
        run_cli({"detect", "--ledger", uri, k_case0, "--min-change", "30", "--recent", "20"});
    CHECK(high.exit_code == 0);
    CHECK_THAT(high.out, Catch::Contains("0 change points"));
  }
}

TEST_CASE(
    "history and detect refuse, with exit 2, a ledger that does not exist and a CASE or filter "
    "that matches nothing") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    for (const std::string command : {"history", "detect"}) {
      const ProcessResult missing = run_cli({command, "--ledger", uri});
      CHECK(missing.exit_code == 2);
      CHECK(missing.out.empty());
      CHECK_THAT(missing.err, Catch::Contains("does not exist"));
    }
    const auto store = open_store(uri);
    store->append(run_of("nightly", "main", false, 100));
    store->append(run_of("nightly", "main", false, 110));
    const auto refused = [&](std::vector<std::string> args, const std::string& message) {
      for (const std::string command : {"history", "detect"}) {
        std::vector<std::string> argv = {command, "--ledger", uri};
        argv.insert(argv.end(), args.begin(), args.end());
        const ProcessResult r = run_cli(argv);
        INFO(command << ' ' << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK_THAT(r.err, Catch::Contains(message));
      }
    };
    // Of two globs, the one that matches nothing is named, and only it.
    refused({k_case0, "nothing/*"}, "CASE \"nothing/*\" matches no case of ledger");
    refused({"--label", "weekly"}, "matches --label weekly");
    refused({k_case0, "--branch", "dev"}, "matches --branch dev");
    refused({"--metric", "wall"}, "has no result with the metric \"wall\"");
    refused({"executors/sort", "--metric", "wall"},
            "CASE \"executors/sort\" has no result with the metric \"wall\"");
    CHECK(run_cli({"history", "--ledger", uri, k_case0, "--label", "nightly"}).exit_code == 0);
    CHECK(run_cli({"detect", "--ledger", uri, k_case0, "--label", "nightly"}).exit_code == 0);
  }
}

TEST_CASE("detect says when a series has too few runs to reach significance, in every format") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    std::vector<std::string> ids;
    for (int i = 0; i < 12; ++i) {  // six runs at 50 ms, then six at 60 ms
      const auto batch = run_of("nightly", "main", false, i < 6 ? 50e6 : 60e6);
      store->append(batch);
      ids.push_back(header_of(batch[0]).id);
    }
    // The rank test's best split of these values, 6 runs at 50 against 6 at 60, has the p of
    // scipy.stats.mannwhitneyu([50] * 6, [60] * 6) (ties: the normal approximation):
    // 0.0012619..., above 0.001. Distinct values need 14 runs: 2 / C(13, 6) = 0.00117 and
    // 2 / C(14, 7) = 0.00058.
    const std::string remark =
        "cannot reach significance at p < 0.001 with 12 runs: the smallest attainable p, a split "
        "of 6 runs against 6, is 0.00126; need >= 14 runs";
    const ProcessResult table = run_cli({"detect", "--ledger", uri, k_case0});
    INFO(table.err);
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("notes:\n  executors/sort") &&
                              Catch::Contains("time: " + remark) &&
                              Catch::Contains("1 case, 0 change points"));
    const ProcessResult md = run_cli({"detect", "--ledger", uri, k_case0, "--format", "md"});
    CHECK(md.exit_code == 0);
    // Markdown escapes < and > (report/escape.hpp); a renderer shows them as they are.
    CHECK_THAT(md.out, Catch::Contains("12 runs\n\ncannot reach significance at p \\< 0.001 with "
                                       "12 runs: the smallest attainable p, a split of 6 runs "
                                       "against 6, is 0.00126; need \\>= 14 runs\n"));
    const ProcessResult js = run_cli({"detect", "--ledger", uri, k_case0, "--format", "json"});
    CHECK(js.exit_code == 0);
    const json one = json::parse(js.out)["cases"][0];
    CHECK(one["remark"] == remark);
    CHECK(one["change_points"].empty());
    // A looser level the same runs reach: the change point, and no remark.
    const json loose = json::parse(
        run_cli({"detect", "--ledger", uri, k_case0, "--format", "json", "--significance", "0.01"})
            .out)["cases"][0];
    CHECK(loose["remark"].is_null());
    REQUIRE(loose["change_points"].size() == 1);
    CHECK(loose["change_points"][0]["position"] == 7);
    CHECK(loose["change_points"][0]["run"] == ids[6]);
    // A 13th run: 6 against 7 tied values reach 0.00072 (scipy), and the change is found.
    store->append(run_of("nightly", "main", false, 60e6));
    const json more = json::parse(
        run_cli({"detect", "--ledger", uri, k_case0, "--format", "json"}).out)["cases"][0];
    CHECK(more["remark"].is_null());
    REQUIRE(more["change_points"].size() == 1);
    CHECK(more["change_points"][0]["position"] == 7);
  }
}
