// Base's gate.run entries measure both sides; an entry only the head's file has measures the head
// alone and cannot pool into a case base's entries judge; a removed entry that fails on the head
// leaves its cases missing there.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include <benchledger/config.hpp>
#include <benchledger/record.hpp>

#include "gate/run_entries.hpp"
#include "model_fixtures.hpp"

using namespace benchledger;
using Words = std::vector<std::string>;

namespace {

GateSpec spec(const std::vector<std::pair<std::string, Words>>& entries) {
  GateSpec out;
  for (const auto& [text, words] : entries) {
    out.run_text.push_back(text);
    out.run.push_back(words);
  }
  return out;
}

ResultRecord result(const std::string& bench, bool failed = false) {
  ResultRecord r;
  r.bench = bench;
  r.primary = failed ? "failed" : "wall";
  return r;
}

std::vector<std::string> benches(const gate::Round& round) {
  std::vector<std::string> out;
  for (const ResultRecord& r : round.results) out.push_back(r.bench);
  return out;
}

}  // namespace

TEST_CASE("base's entries come first and measure both sides; the head's new ones measure head") {
  const GateSpec base =
      spec({{"--name work -- sh work.sh", {"--name", "work", "--", "sh", "work.sh"}},
            {"--name io -- sh io.sh", {"--name", "io", "--", "sh", "io.sh"}}});
  // The same words written with other spacing are the same entry.
  const GateSpec head =
      spec({{"-- true", {"--", "true"}},
            {"--name  work -- sh work.sh", {"--name", "work", "--", "sh", "work.sh"}}});
  const std::vector<gate::RunEntry> entries = gate::run_entries(base, &head);
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].text == "--name work -- sh work.sh");
  CHECK_FALSE(entries[0].head_only);
  CHECK_FALSE(entries[0].removed_by_head);
  CHECK(entries[1].text == "--name io -- sh io.sh");
  CHECK(entries[1].removed_by_head);
  CHECK(entries[2].text == "-- true");
  CHECK(entries[2].head_only);
  // Without a second file (base has no gate section), the reference's entries are all there is.
  for (const gate::RunEntry& entry : gate::run_entries(head, nullptr)) {
    CHECK_FALSE(entry.head_only);
    CHECK_FALSE(entry.removed_by_head);
  }
}

TEST_CASE("a head-only entry's results of a case base's entries measure are left out") {
  const gate::RunEntry base_entry{{"--name", "work"}, "--name work"};
  gate::RunEntry added{{"--name", "work", "--runs", "100", "--", "true"}, "--name work -- true"};
  added.head_only = true;
  std::set<std::string> base_cases;
  gate::Round measured{testing::sample_run(), {result("work")}};
  CHECK_FALSE(gate::keep_head_results(base_entry, measured, base_cases));
  CHECK(benches(measured) == Words{"work"});
  gate::Round extra{testing::sample_run(), {result("work"), result("new")}};
  const auto why = gate::keep_head_results(added, extra, base_cases);
  REQUIRE(why);
  CHECK(*why ==
        "gate.run entry \"--name work -- true\", which only the head's benchledger.json has, "
        "measures work, which base's entries measure: its results of it are left out");
  CHECK(benches(extra) == Words{"new"});
}

TEST_CASE("a removed entry's failed results on the head are left out: its cases are missing") {
  gate::RunEntry removed{{"--name", "io"}, "--name io -- sh io.sh"};
  removed.removed_by_head = true;
  std::set<std::string> base_cases;
  gate::Round failed{testing::sample_run(), {result("io", true), result("io2")}};
  const auto why = gate::keep_head_results(removed, failed, base_cases);
  REQUIRE(why);
  CHECK(*why ==
        "gate.run entry \"--name io -- sh io.sh\", which the head's benchledger.json no longer "
        "has, failed on head for io: the head stopped running it, so it is missing there");
  CHECK(benches(failed) == Words{"io2"});
  // Measured on the head, it is compared like any other.
  gate::Round measured{testing::sample_run(), {result("io")}};
  CHECK_FALSE(gate::keep_head_results(removed, measured, base_cases));
  CHECK(benches(measured) == Words{"io"});
}
