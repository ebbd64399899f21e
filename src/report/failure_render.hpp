// What went wrong, as the comparison's outputs show it: the last lines of a failed case's stderr
// (the table's remark says that it failed; these say why), and the gate's outputs when it made no
// comparison at all (a failed build, prepare or `benchledger run`, a configuration it refuses),
// written to --out like a comparison so that CI posts them as the comment. Pure functions.
#pragma once

#include <optional>
#include <string>

#include "compare/comparison.hpp"

namespace benchledger::report {

// Under the terminal table: each failed case's last lines of stderr (CaseComparison::
// failure_output), once a case, indented; empty when no case has any.
std::string failure_output_text(const compare::ComparisonReport& report);
// The same for the Markdown comment: a heading, then each case's lines in a fenced block.
std::string failure_output_markdown(const compare::ComparisonReport& report);

// Why the gate made no comparison.
struct GateError {
  std::string message;  // what() of the error, as printed on stderr
  // When a step of one side failed (gate::StepFailed); absent for any other error.
  struct Step {
    std::string side;     // base or head
    std::string commit;   // full commit id
    std::string step;     // build, prepare, `round 3, gate.run[0]`
    std::string command;  // secrets redacted
    std::string outcome;  // `exit status 7`
    std::string output;   // the step's last lines (model::output_tail); may be empty
  };
  std::optional<Step> step;
};

// The four forms of a gate that made no comparison (state `error`, exit 2): Markdown for the
// comment (the side, the step, its command and the end of its output, the message alone for
// other errors), the terminal's text, JSON (`{"state": "error", "gate": "error", "error":
// {...}}`, ending with '\n') and JUnit XML (one test case with an <error>).
std::string render_gate_error_markdown(const GateError& error);
std::string render_gate_error_text(const GateError& error);
std::string render_gate_error_json(const GateError& error);
std::string render_gate_error_junit(const GateError& error);

}  // namespace benchledger::report
