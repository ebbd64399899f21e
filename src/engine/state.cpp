// State: the loop of BENCH mode, timing pauses, and params.
#include <utility>

#include <benchledger/benchledger.hpp>
#include <benchledger/error.hpp>

#include "engine/case_control.hpp"
#include "engine/clock.hpp"

namespace benchledger {

State::State(detail::CaseControl* control, const Params* params, int concurrency, int thread_index)
    : m_control(control),
      m_params(*params),
      m_concurrency(concurrency),
      m_thread_index(thread_index) {}

State::~State() = default;

State::Iterator State::begin() {
  if (m_started)
    throw Error("the loop over State ran twice; a benchmark function loops once per case");
  m_started = true;
  m_batch = m_control->start_loop(m_thread_index);
  m_busy = 0;
  m_paused = false;
  m_segment_start = engine::now_ns();
  return {this, m_batch};
}

std::int64_t State::next_batch() {
  if (m_batch == 0) return 0;
  const std::int64_t now = engine::now_ns();
  if (!m_paused) m_busy += now - m_segment_start;
  m_batch = m_control->batch_done(m_thread_index, m_busy);
  m_busy = 0;
  if (m_batch == 0) return 0;
  m_segment_start = engine::now_ns();
  return m_batch;
}

void State::pause_timing() {
  if (m_paused) return;
  m_busy += engine::now_ns() - m_segment_start;
  m_paused = true;
}

void State::resume_timing() {
  if (!m_paused) return;
  m_paused = false;
  m_segment_start = engine::now_ns();
}

const ParamValue& State::param(std::string_view name) const {
  const auto it = m_params.find(std::string(name));
  if (it == m_params.end()) {
    std::string known;
    for (const auto& [key, value] : m_params) known += (known.empty() ? "" : ", ") + key;
    throw Error("param \"" + std::string(name) + "\" is not declared for this case (declared: " +
                (known.empty() ? "none" : known) + ")");
  }
  return it->second;
}

std::int64_t State::int_param(std::string_view name) const {
  const ParamValue& value = param(name);
  if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
  throw Error("param \"" + std::string(name) + "\" is not an integer: " + to_string(value));
}

double State::double_param(std::string_view name) const {
  const ParamValue& value = param(name);
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  throw Error("param \"" + std::string(name) + "\" is not a number: " + to_string(value));
}

std::string State::string_param(std::string_view name) const {
  const ParamValue& value = param(name);
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  throw Error("param \"" + std::string(name) + "\" is not a string: " + to_string(value));
}

bool State::bool_param(std::string_view name) const {
  const ParamValue& value = param(name);
  if (const auto* b = std::get_if<bool>(&value)) return *b;
  throw Error("param \"" + std::string(name) + "\" is not a bool: " + to_string(value));
}

void State::set_items_per_op(double items) {
  if (!(items > 0)) throw Error("set_items_per_op: items must be positive");
  m_control->set_items_per_op(items);
}

void State::keep_object(std::shared_ptr<void> object) {
  m_control->keep(std::move(object));
}

void State::fail(const std::string& reason) {
  throw CaseFailed(reason);
}

}  // namespace benchledger
