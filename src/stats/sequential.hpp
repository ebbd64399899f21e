// Levels for looking again: a gate that tests after every extra round of pairs must split its
// error rate over the looks, or each new look is a new chance of a false alarm.
#pragma once

#include <cstddef>

namespace benchledger::stats {

// The level of look k (1-based) so that the levels of every look sum to at most alpha however
// many looks follow (a union bound: any-time error <= alpha): half of alpha at the first
// (planned) look, then alpha/2 * 6/(pi^2 (k-1)^2) at look k >= 2 (sum over j >= 1 of 1/j^2 is
// pi^2/6). Throws Error when alpha not in (0,1) or k < 1.
double look_level(double alpha, int look);

// How many pairs the look after one at `pairs` waits for: half as many again, at least one more
// (10, 15, 23, 35, 53, ...). A look per pair spends the levels on looks that add one pair of
// information each; spacing them geometrically leaves each look a larger share of alpha, so its
// interval is narrower at the same number of pairs (docs/statistics.md, "Paired rounds and
// repeated looks"). Throws Error when pairs is 0.
std::size_t next_look(std::size_t pairs);

}  // namespace benchledger::stats
