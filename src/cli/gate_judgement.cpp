#include "cli/gate_judgement.hpp"

#include <fmt/format.h>
#include <benchledger/error.hpp>

#include "compare/gate_configuration.hpp"
#include "stats/sequential.hpp"

namespace benchledger::cli {
namespace {

std::vector<compare::SettingChange> changes_of(const gate::GateMeasurement& measured) {
  if (!measured.head_config) return {};
  return compare::gate_configuration_changes(measured.config, *measured.head_config);
}

}  // namespace

void GateJudgement::judge(const gate::GateMeasurement& so_far, const Config& config, int look,
                          Looks& into) const {
  compare::CompareOptions judging = m_options_for(config, so_far);
  into.alpha = judging.alpha;
  judging.alpha = stats::look_level(judging.alpha, look);
  const compare::Side base{{so_far.base.run}, so_far.base.results};
  const compare::Side head{{so_far.head.run}, so_far.head.results};
  into.reports.push_back(compare::compare_sides(base, head, {}, judging));
}

std::set<std::string> GateJudgement::look(const gate::GateMeasurement& so_far, int look) {
  judge(so_far, so_far.config, look, m_base);
  // Only where the head's file differs: a second judgement of the same runs would agree.
  if (!m_head_error && !changes_of(so_far).empty()) {
    try {
      judge(so_far, *so_far.head_config, look, m_head);
    } catch (const Error& e) {
      m_head_error = e.what();
      m_head.reports.clear();
    }
  }
  std::set<std::string> undecided;
  for (const compare::CaseComparison& c : report(so_far).cases) {
    if (c.verdict == compare::Verdict::inconclusive) undecided.insert(case_key(c.bench, c.params));
  }
  return undecided;
}

compare::ComparisonReport GateJudgement::report(const gate::GateMeasurement& measured) const {
  compare::ComparisonReport out = compare::settle_looks(m_base.reports, m_base.alpha);
  std::vector<compare::SettingChange> changes = changes_of(measured);
  if (!m_head.reports.empty()) {
    out = compare::judge_by_base(
        std::move(out), compare::settle_looks(m_head.reports, m_head.alpha), std::move(changes));
  } else {
    out.configuration = std::move(changes);
  }
  if (m_head_error) {
    out.warnings.push_back(fmt::format(
        "the head's benchledger.json cannot judge these runs ({}): the base's configuration "
        "judges alone",
        *m_head_error));
  }
  out.warnings.insert(out.warnings.end(), measured.warnings.begin(), measured.warnings.end());
  return out;
}

}  // namespace benchledger::cli
