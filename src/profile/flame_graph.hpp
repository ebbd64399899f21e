// A differential flame graph of two profiles (docs/profiles.md, "In the HTML report"), drawn from
// their call graphs: each frame a function on one path of calls from a root, its width the
// inclusive instructions the head spends on that path, beside what the base spent there.
//
// Callgrind keeps the cost of each call from a caller to a callee, not whole call stacks, so a
// path's cost is exact for a root and its callees; below a function called from several places,
// its callees are shared out in proportion to what each caller spent calling it (as gprof and
// KCachegrind's call graph do), which is exact only where the function costs the same whoever
// calls it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace benchledger::profile {

struct FlameFrame {
  std::string name;  // "(other functions)" for the calls into functions a profile adds up
  std::optional<std::string> file;
  std::optional<std::int64_t> line;
  std::size_t depth = 0;      // 0: a root
  double start = 0;           // where it begins in its row, in the head's instructions
  double base = 0, head = 0;  // inclusive instructions per operation on this path
};

struct FlameGraph {
  double width = 0;                // the roots' head cost together: what a full row stands for
  std::size_t depth = 0;           // rows
  std::vector<FlameFrame> frames;  // parents before their children, children by name
};

// The frames of both sides' call graphs merged by path (the names from a root), laid out by the
// head's cost: a path the head no longer takes has no width. Frames narrower than `min_share` of
// the width, and paths deeper than `max_depth`, are left out; a function already on its own path
// (a cycle) is not expanded again; a function nothing in its side's call graph calls is a root.
// A function's calls are shared out of what it holds even where they say more (a damaged
// profile), so that with `min_share` above 0 a row has at most 1/min_share frames a side. Empty
// when either profile has no call graph.
FlameGraph differential_flame_graph(const Profile& base, const Profile& head,
                                    double min_share = 0.002, std::size_t max_depth = 40);

}  // namespace benchledger::profile
