// Whose gate configuration judges a pull request (docs/ci-gate.md, "Whose configuration
// judges"): the base revision's benchledger.json, not the head's, which is part of the change
// under review. The head's file can only add: its settings judge the same two runs a second
// time, a case that only its looser settings pass is `accepted by this change` (it passes, listed
// first, with the old and the new setting), one that only its stricter settings fail fails, and
// every setting that differs opens the comment.
#pragma once

#include <vector>

#include <benchledger/config.hpp>

#include "compare/comparison.hpp"

namespace benchledger::compare {

// Every setting whose base and head values differ, in this order: the `thresholds` and
// `deterministic_thresholds` patterns (in base's order, then head's new ones), then the gate
// section's keys in the order docs/ci-gate.md lists them, a `gate.run` entry that only one side
// has (an entry is the same on both when its words are) once per entry. Values as the outputs
// print them: `5%`, `true`, `cpu, wall`, an entry's text, `none` where the key is absent.
std::vector<SettingChange> gate_configuration_changes(const Config& base, const Config& head);

// Whether a key of gate_configuration_changes changes how the runs are judged (the thresholds,
// gate.metric, gate.threshold, gate.fail-on, gate.allow-missing, gate.undecided, gate.design)
// rather than how they are measured (gate.build, gate.prepare, gate.program, gate.run,
// gate.rounds, gate.budget, gate.duet: base's measure both sides).
bool judging_setting(const SettingChange& change);

// The gate's report from two judgements of the same runs, `by_base` by the base revision's
// configuration and `by_head` by the head's, each settled over its looks; a case is a bench,
// params and metric, and it fails a judgement when it fails the gate there (an inconclusive one
// too, when that judgement's undecided_fails). Each case of by_base:
// - fails by base and passes by head (the same metric passes there, or, when head compares other
//   metrics, every metric of the case passes there): `accepted_by_change`, passing, with `judged`
//   the base verdict and `loosened` the case's threshold when it differs and the judging settings
//   of `configuration` that differ;
// - passes by base and fails by head: head's comparison of it, failing, its remark saying so;
// - else as by_base judged it.
// A case only by_head has (a metric only head compares) is added as head judged it. Cases stay
// sorted by bench, params and metric, accepted_by_change ones first; fail_on is both sides' and
// undecided_fails either's; `configuration` is kept for the outputs; counts and state are
// settled anew (settle_gate).
ComparisonReport judge_by_base(ComparisonReport by_base, const ComparisonReport& by_head,
                               std::vector<SettingChange> configuration);

}  // namespace benchledger::compare
