// Callgrind's output format is read into each function's self cost as callgrind_annotate reads
// it (names compressed or not, a call's inclusive cost left out, recursion levels one function),
// merged over processes and capped, and two profiles are paired by name across build directories.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include <benchledger/error.hpp>

#include "profile/profile.hpp"
#include "profile/profile_diff.hpp"
#include "support/scratch_dir.hpp"

using benchledger::profile::diff_profiles;
using benchledger::profile::Event;
using benchledger::profile::FunctionCost;
using benchledger::profile::Profile;
using benchledger::profile::read_callgrind_profile;

namespace {

// Callgrind 3.19's output as it writes it with --cache-sim=yes (compressed names and positions),
// cut to a few functions: main calls fib (recursive, `fib'2`) and an inlined helper in a header
// (fi=/fe=); the numbers are chosen so that each total is easy to add by hand.
constexpr const char* k_output = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./prog
part: 1

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 1111 0 0

ob=(1) /tmp/prog
fl=(1) /src/prog.cpp
fn=(1) main
10 100
cfl=(1)
cfn=(2) _Z3fibl
calls=1 -5
* 900 10
+1 1
fi=(2) /usr/include/helper.h
3 10
fe=(1)
12 0 2 0 0 2

fn=(2)
5 500
cfn=(3) _Z3fibl'2
calls=2 *
* 400
fn=(3)
5 400

fl=(3) ???
fn=(4) 0x0000000000001090
0 100
totals: 1111
)";

Profile read(const std::vector<std::string>& outputs, std::int64_t ops, std::size_t kept = 100) {
  benchledger::test_support::ScratchDir dir;
  std::vector<std::filesystem::path> files;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    files.push_back(dir.path() / ("callgrind.out." + std::to_string(i)));
    std::ofstream(files.back()) << outputs[i];
  }
  return read_callgrind_profile(files, ops, kept);
}

const FunctionCost& function(const Profile& p, const std::string& name) {
  for (const FunctionCost& f : p.functions)
    if (f.name == name) return f;
  FAIL("no function " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("callgrind's output gives each function its self cost, demangled, with file and line") {
  const Profile p = read({k_output}, 1);
  // main: 100 + 1 + 10 (the inlined helper's line is main's cost) + 0; not the call's 900.
  CHECK(function(p, "main").self.instructions == 111);
  CHECK(function(p, "main").file == "/src/prog.cpp");
  CHECK(function(p, "main").line == 10);
  // fib and its recursion level fib'2: one function.
  CHECK(function(p, "fib(long)").self.instructions == 900);
  CHECK(function(p, "fib(long)").line == 5);
  // A function without debug information: no file, no line.
  CHECK_FALSE(function(p, "0x0000000000001090").file);
  CHECK(p.total.instructions == 1111);  // the totals line: self costs add up to it
  CHECK(p.functions.front().name == "fib(long)");
  // Estimated cycles: main's two data reads that miss L1 and hit the last level cost 5 each.
  CHECK(function(p, "main").self.estimated_cycles == 111 + 2 * 5);
  // The call graph, by inclusive cost: main (its 111 and its call of fib, 900), fib (900: its
  // calls of itself, fib'2, left out), the function without debug information.
  const auto& graph = p.call_graph;
  REQUIRE(graph.functions.size() == 3);
  CHECK(graph.functions[0] == benchledger::profile::CallGraph::Function{"main", 1011});
  CHECK(graph.functions[1] == benchledger::profile::CallGraph::Function{"fib(long)", 900});
  REQUIRE(graph.calls.size() == 1);
  CHECK(graph.calls[0] == benchledger::profile::CallGraph::Call{0, 1, 900});
}

TEST_CASE("profiles of several processes add up per function, per operation, capped with other") {
  const Profile p = read({k_output, k_output}, 2, 2);
  CHECK(p.processes == 2);
  CHECK(function(p, "fib(long)").self.instructions == 900);  // 2 × 900 over 2 operations
  CHECK(p.functions.size() == 2);
  CHECK(p.other_functions == 1);
  CHECK(p.other.instructions == 100);
  CHECK(p.total.instructions == 1111);
  // The artifact's bytes read back to the same profile, and the same profile to the same bytes.
  const std::string bytes = benchledger::profile::to_artifact(p);
  CHECK(benchledger::profile::profile_from_artifact(bytes, "test") == p);
  CHECK(benchledger::profile::to_artifact(read({k_output, k_output}, 2, 2)) == bytes);
}

TEST_CASE("a file that is not callgrind's output is refused naming its line") {
  std::string broken = k_output;
  broken.replace(broken.find("fn=(2)\n"), 7, "fn=(9)\n");
  CHECK_THROWS_WITH(read({broken}, 1), Catch::Contains("line 26: name (9) is used before it"));
  CHECK_THROWS_WITH(read({"events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nfn=(1 main\n"}, 1),
                    Catch::Contains("line 2: \"(1 main\" is not a compressed name"));
  CHECK_THROWS_WITH(read({"events: Ir\nfn=main\n1 2\n"}, 1),
                    Catch::Contains("line 1: no event Dr"));
}

TEST_CASE("two profiles pair functions by name across directories and rank changes by size") {
  Profile base;
  base.functions = {{"work()", "/a/src/w.cpp", 3, {100, 100}},
                    {"gone()", "/a/src/g.cpp", 1, {10, 10}}};
  base.total = {110, 110};
  Profile head;
  head.functions = {{"work()", "/b/src/w.cpp", 3, {160, 160}},
                    {"new()", "/b/src/n.cpp", 9, {30, 30}}};
  head.total = {190, 190};
  const auto d = diff_profiles(base, head, Event::instructions);
  CHECK(d.change == 80);
  REQUIRE(d.functions.size() == 3);
  CHECK(d.functions[0].name == "work()");
  CHECK(d.functions[0].change == 60);
  CHECK(d.functions[0].share == Approx(0.75));
  CHECK(d.functions[0].file == "/b/src/w.cpp");  // the head's place: the code as it is now
  CHECK(d.functions[1].name == "new()");
  CHECK_FALSE(d.functions[1].base);
  CHECK(d.functions[2].name == "gone()");
  CHECK(d.functions[2].change == -10);
  CHECK_FALSE(d.functions[2].head);
}

TEST_CASE("a function that fell below one side's cut ranks by the least it can have changed") {
  Profile base;
  base.functions = {{"big()", {}, {}, {1000, 1000}}, {"edge()", {}, {}, {50, 50}}};
  base.total = {1090, 1090};
  base.other_functions = 3;
  base.other = {40, 40};
  Profile head = base;
  head.functions = {{"big()", {}, {}, {1030, 1030}}, {"tail()", {}, {}, {45, 45}}};
  head.other = {85, 85};  // edge() is among them now, at 45
  head.total = {1160, 1160};
  const auto d = diff_profiles(base, head, Event::instructions);
  // edge() changed by -50 as the sides name it, but the head may hold it at up to 45 (its
  // smallest kept function): less certain than big()'s +30.
  CHECK(d.functions[0].name == "big()");
}
