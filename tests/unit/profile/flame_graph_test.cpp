// A differential flame graph is drawn from two profiles' call graphs: exact along a root's calls,
// a shared callee's calls shared out by what each caller spent on it, cycles cut, laid out by the
// head's cost.
#include <catch2/catch.hpp>

#include "profile/flame_graph.hpp"
#include "profile/profile.hpp"

using benchledger::profile::differential_flame_graph;
using benchledger::profile::FlameFrame;
using benchledger::profile::FlameGraph;
using benchledger::profile::Profile;

namespace {

// main calls a and b, which both call c, which calls d; d calls a again (a cycle). `b_to_c` is
// what b's calls of c cost.
Profile program(double b_to_c) {
  Profile p;
  const double c = 300 + b_to_c, d = 100 * c / 600;
  p.call_graph.functions = {
      {"main", 10 + 600 + 200 + b_to_c}, {"a", 600}, {"b", 200 + b_to_c}, {"c", c}, {"d", d}};
  p.call_graph.calls = {{0, 1, 600}, {0, 2, 200 + b_to_c}, {1, 3, 300}, {2, 3, b_to_c},
                        {3, 4, d},   {3, std::nullopt, 0}, {4, 1, 10}};
  p.total.instructions = 10 + 600 + 200 + b_to_c;
  return p;
}

const FlameFrame& frame(const FlameGraph& g, std::size_t depth, const std::string& name,
                        double start) {
  for (const FlameFrame& f : g.frames)
    if (f.depth == depth && f.name == name && f.start == Approx(start)) return f;
  FAIL("no frame " << name << " at depth " << depth << " from " << start);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a flame graph follows the calls from each root, sharing a shared callee's calls out") {
  const FlameGraph g = differential_flame_graph(program(200), program(400), 0, 40);
  // main is the only root: nothing calls it. Its width is what the head spends in it.
  CHECK(g.width == Approx(10 + 600 + 600));
  const FlameFrame& main = frame(g, 0, "main", 0);
  CHECK(main.base == Approx(1010));
  CHECK(main.head == Approx(1210));
  // Its callees by name, a first; each at its caller's calls' inclusive cost.
  CHECK(frame(g, 1, "a", 0).head == Approx(600));
  CHECK(frame(g, 1, "b", 600).base == Approx(400));
  CHECK(frame(g, 1, "b", 600).head == Approx(600));
  // c through a and through b: exact, each caller's calls of it.
  CHECK(frame(g, 2, "c", 0).head == Approx(300));
  CHECK(frame(g, 2, "c", 600).base == Approx(200));
  CHECK(frame(g, 2, "c", 600).head == Approx(400));
  // d, below the shared c: c's calls of d shared out by what each path spent on c (head: 700 in
  // c from 300 + 400 of calls, 300/700 and 400/700 of its calls of d).
  const double head_d = 100.0 * 700 / 600;
  CHECK(frame(g, 3, "d", 0).head == Approx(head_d * 300 / 700));
  CHECK(frame(g, 3, "d", 600).head == Approx(head_d * 400 / 700));
  // d calls a: on a's own path (main, a, c, d) not expanded again; on b's it is, and a's call
  // of c, already on that path, is not: nothing is deeper than that a.
  CHECK(frame(g, 4, "a", 600).head > 0);
  for (const FlameFrame& f : g.frames) CHECK(!(f.depth == 4 && f.start < 600));
  CHECK(g.depth == 5);
  // Parents come before their children.
  CHECK(g.frames.front().name == "main");
}

TEST_CASE("a path the head no longer takes has no width; profiles without calls draw nothing") {
  Profile head = program(200);
  head.call_graph.calls.erase(head.call_graph.calls.begin() + 1);  // main no longer calls b
  const FlameGraph g = differential_flame_graph(program(200), head, 0, 40);
  for (const FlameFrame& f : g.frames) CHECK(!(f.depth == 1 && f.name == "b"));
  // b, no longer called, is a root of the head's graph of its own (roots by name: b first).
  CHECK(frame(g, 0, "b", 0).base == Approx(0));
  CHECK(frame(g, 0, "b", 0).head == Approx(400));
  CHECK(frame(g, 0, "main", 400).base == Approx(1010));
  Profile bare = program(200);
  bare.call_graph = {};
  CHECK(differential_flame_graph(bare, program(200)).frames.empty());
}

TEST_CASE("frames narrower than the least share, or deeper than the most depth, are left out") {
  const FlameGraph narrow = differential_flame_graph(program(200), program(400), 0.1, 40);
  for (const FlameFrame& f : narrow.frames) CHECK(f.head >= 0.1 * 1210);
  const FlameGraph shallow = differential_flame_graph(program(200), program(400), 0, 2);
  CHECK(shallow.depth == 2);
}

TEST_CASE("a damaged call graph draws no frame wider than its caller, in bounded time") {
  // Calls that say far more than their caller's inclusive cost, every function calling every
  // other: each caller's calls are scaled to what it holds, and at most 1/min_share frames a row.
  Profile p;
  for (int f = 0; f < 30; ++f) p.call_graph.functions.push_back({"f" + std::to_string(f), 1});
  p.call_graph.functions[0].inclusive = 1e6;
  for (std::size_t a = 0; a < 30; ++a) {
    for (std::size_t b = 1; b < 30; ++b) {
      if (a != b) p.call_graph.calls.push_back({a, b, 1e9});
    }
  }
  p.total.instructions = 10;
  const FlameGraph g = differential_flame_graph(p, p);
  CHECK(g.width == Approx(1e6));
  std::vector<std::size_t> per_row(g.depth, 0);
  for (const FlameFrame& f : g.frames) {
    CHECK(f.head <= 1e6 * (1 + 1e-9));
    ++per_row[f.depth];
  }
  for (const std::size_t n : per_row) CHECK(n <= 500);
}
