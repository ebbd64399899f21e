// Change points in a series (docs/history.md): E-Divisive means (Matteson & James, "A
// Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014)
// with the windowed split and the merge of weak change points of Fleming et al., "Hunter: Using
// Change Point Detection to Hunt for Performance Regressions" (ICPE 2023), as Apache Otava runs
// them; by default with a rank test (Mann–Whitney U) in place of Otava's Student's t, so that a
// single outlier neither makes a change of its own nor hides a real one from the test.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace benchledger::stats {

enum class SegmentTest {
  rank,     // two-sided Mann–Whitney U (exact for small segments without ties)
  student,  // Student's t with pooled variance, as Otava
};

// The largest window: the split step holds a window² table of distances (32 MB at 2000).
inline constexpr std::size_t k_max_change_point_window = 2000;

struct ChangePointOptions {
  std::size_t window = 50;   // points in each window of the split step; 2 to 2000
  double max_p = 0.001;      // the final significance level of the test between segments
  double min_magnitude = 0;  // relative change a change point needs when its p is small enough
  SegmentTest test = SegmentTest::rank;
  // After dropping a change point, the merge retests both neighbours, whose segments changed.
  // False: as Otava 0.8.0, the two change points after the dropped one, leaving the one before
  // it with a stale p-value (kept to check this code against Otava's, index for index).
  bool retest_both_neighbours = true;
};

struct ChangePoint {
  std::size_t index = 0;  // the first point after the change (0-based)
  double before = 0;      // mean of the segment before, up to the previous change point
  double after = 0;       // mean of the segment after, up to the next one
  double p = 1;           // the test's two-sided p-value of the two segments
  double qhat = 0;        // the E-Divisive statistic that proposed it
};

// The change points of `series` in increasing order of index. Throws benchledger::Error when
// a value is not finite, the window is below 2, max_p is not in (0, 1] or min_magnitude is
// negative.
std::vector<ChangePoint> e_divisive_change_points(std::span<const double> series,
                                                  const ChangePointOptions& options);

// How far the test between segments can reach on a series too short for it: the smallest p any
// split of the series' values can get (the values sorted, so that every split separates them
// completely: for the rank test no order of the same values gives a smaller p at that split),
// the sizes of the split that gets it, and the fewest points whose best split of distinct values
// gets below max_p (the rank test: 2 / C(n, n/2) < max_p; Student's t: 3).
struct ChangePointReach {
  double smallest_p = 1;
  std::size_t before = 0, after = 0;  // the segments of that split (after is 0 below 2 points)
  std::size_t points_needed = 0;
};

// Why `series` can hold no change point whatever the order of its values: it has fewer than
// points_needed points and no split of them gets a p below options.max_p, which the merge step
// requires. Nullopt otherwise (a series with enough points that holds none is simply flat).
// Throws what e_divisive_change_points throws for its options.
std::optional<ChangePointReach> unreachable_change_point(std::span<const double> series,
                                                         const ChangePointOptions& options);

// The relative size of a change, as the merge step weighs it: the larger of |after/before - 1|
// and |before/after - 1| (0 for a mean of 0, as Otava).
double change_magnitude(double before, double after);

}  // namespace benchledger::stats
