// Levels for looking again: a gate that tests after every extra round of pairs must split its
// error rate over the looks, or each new look is a new chance of a false alarm.
#pragma once

namespace benchledger::stats {

// The level of look k (1-based) so that the levels of every look sum to at most alpha however
// many looks follow (a union bound: any-time error <= alpha): half of alpha at the first
// (planned) look, then alpha/2 * 6/(pi^2 (k-1)^2) at look k >= 2 (sum over j >= 1 of 1/j^2 is
// pi^2/6). Throws Error when alpha not in (0,1) or k < 1.
double look_level(double alpha, int look);

}  // namespace benchledger::stats
