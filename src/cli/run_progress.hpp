// The progress line of a run: one status line on stderr, rewritten in place, with the case's
// place, its name, its phase and the time left; only on a terminal and without --quiet.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "engine/native.hpp"

namespace benchledger::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : m_enabled(enabled) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void start_case(std::size_t index, std::size_t total, std::string name);
  void phase(const engine::CasePhase& p);
  void finish_case(double seconds);
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  // Redraws at most every 100 ms unless `force`.
  void draw(bool force);
  // The whole run's time left: this case's from its repetitions or the mean so far, and the
  // mean for each case after it; nullopt until a mean is known.
  std::optional<double> seconds_left(Clock::time_point now) const;

  const bool m_enabled;
  bool m_drawn = false;
  std::size_t m_index = 0, m_total = 0, m_finished = 0;
  double m_finished_seconds = 0;
  std::string m_name;
  engine::CasePhase m_phase;
  Clock::time_point m_case_start{}, m_last_draw{};
};

}  // namespace benchledger::cli
