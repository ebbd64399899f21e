// How `gate` judges the rounds measured so far, at every look and at the end: by the base
// revision's gate configuration and, where the head's differs, by the head's too, the two joined
// by compare::judge_by_base (docs/ci-gate.md, "Whose configuration judges").
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <benchledger/config.hpp>

#include "compare/comparison.hpp"
#include "gate/gate.hpp"

namespace benchledger::cli {

class GateJudgement {
 public:
  // How one configuration (with the command line's flags, which win) judges what was measured:
  // the options at the gate's alpha, the pairs set when its design is paired.
  using OptionsFor =
      std::function<compare::CompareOptions(const Config&, const gate::GateMeasurement&)>;
  explicit GateJudgement(OptionsFor options_for) : m_options_for(std::move(options_for)) {}

  // Judges `so_far` at look `look` (each configuration at its share of alpha) and returns the
  // case keys the joined judgement leaves inconclusive. Throws Error when the base's
  // configuration cannot judge; the head's failing to (a metric no case has) leaves the base's to
  // judge alone, with a warning in report().
  std::set<std::string> look(const gate::GateMeasurement& so_far, int look);

  // The gate's report of every look so far: each case as the first look that decided it, the
  // configuration's differences, accepted_by_change cases first, `measured`'s warnings added.
  // Throws Error when there was no look.
  compare::ComparisonReport report(const gate::GateMeasurement& measured) const;

 private:
  struct Looks {
    std::vector<compare::ComparisonReport> reports;
    double alpha = 0.05;
  };
  void judge(const gate::GateMeasurement& so_far, const Config& config, int look,
             Looks& into) const;

  OptionsFor m_options_for;
  Looks m_base, m_head;
  std::optional<std::string> m_head_error;  // why the head's configuration could not judge
};

}  // namespace benchledger::cli
