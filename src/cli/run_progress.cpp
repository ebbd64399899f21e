// The progress line of a run (run_progress.hpp).
#include "cli/run_progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "report/format.hpp"

namespace benchledger::cli {
namespace {

std::string format_seconds(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", std::max(seconds, 1.0));
  const auto minutes = static_cast<int>(seconds / 60);
  return fmt::format("{} min {:02.0f} s", minutes, seconds - minutes * 60);
}

// The first `count` code points of UTF-8 text.
std::string first_code_points(const std::string& text, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t n = 0; n < count && at < text.size(); ++n) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
  }
  return text.substr(0, at);
}

// The last `count` code points of UTF-8 text.
std::string last_code_points(const std::string& text, std::size_t count) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n < count && at > 0; ++n) {
    --at;
    while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  }
  return text.substr(at);
}

// head + name + tail in at most `width` columns. The case's place, its phase and the time
// left matter most while a run goes on, so the name gives way first: it loses its middle
// (the bench name at its start and the last params stay); only a terminal too narrow for
// head and tail alone cuts the line's end.
std::string fit_line(const std::string& head, const std::string& name, const std::string& tail,
                     std::size_t width) {
  const std::size_t fixed = report::display_width(head) + report::display_width(tail);
  const std::size_t name_width = report::display_width(name);
  if (fixed + name_width <= width) return head + name + tail;
  constexpr std::size_t k_shortest_name = 9;  // four code points each side of the ellipsis
  if (fixed + k_shortest_name <= width) {
    const std::size_t keep = width - fixed - 1;  // one column for the ellipsis
    const std::size_t front = (keep + 1) / 2;
    return head + first_code_points(name, front) + "…" + last_code_points(name, keep - front) +
           tail;
  }
  return first_code_points(head + name + tail, width > 1 ? width - 1 : 0) + "…";
}

}  // namespace

void ProgressLine::start_case(std::size_t index, std::size_t total, std::string name) {
  m_index = index;
  m_total = total;
  m_name = std::move(name);
  m_case_start = Clock::now();
  m_phase = engine::CasePhase{"starting", 0, 0, 0};
  draw(true);
}

void ProgressLine::phase(const engine::CasePhase& p) {
  m_phase = p;
  draw(false);
}

void ProgressLine::finish_case(double seconds) {
  m_finished_seconds += seconds;
  ++m_finished;
}

void ProgressLine::clear() {
  if (m_enabled && m_drawn) {
    std::cerr << "\r\033[K" << std::flush;
    m_drawn = false;
  }
}

void ProgressLine::draw(bool force) {
  if (!m_enabled) return;
  const auto now = Clock::now();
  if (!force && now - m_last_draw < std::chrono::milliseconds(100)) return;
  m_last_draw = now;
  std::string phase = m_phase.phase;
  if (m_phase.total > 0) phase += fmt::format(" {}/{}", m_phase.done, m_phase.total);
  const std::string head = fmt::format("[{}/{}] ", m_index + 1, m_total);
  std::string tail = " · " + phase;
  if (const auto left = seconds_left(now)) tail += " · about " + format_seconds(*left) + " left";
  winsize size{};
  std::size_t columns = 100;
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) columns = size.ws_col;
  const std::string text = fit_line(head, m_name, tail, columns - 1);
  std::cerr << "\r\033[K" << text << std::flush;
  m_drawn = true;
}

std::optional<double> ProgressLine::seconds_left(Clock::time_point now) const {
  const double in_case = std::chrono::duration<double>(now - m_case_start).count();
  const std::optional<double> mean =
      m_finished > 0 ? std::optional<double>(m_finished_seconds / static_cast<double>(m_finished))
                     : std::nullopt;
  std::optional<double> current;
  if (m_phase.phase == "measuring" && m_phase.total > 0 && m_phase.last_repetition_s > 0) {
    current = (m_phase.total - m_phase.done) * m_phase.last_repetition_s;
  } else if (mean) {
    current = std::max(*mean - in_case, 0.0);
  }
  const std::size_t after = m_total - m_index - 1;
  if (!current || (after > 0 && !mean)) return std::nullopt;
  return *current + static_cast<double>(after) * mean.value_or(0);
}

}  // namespace benchledger::cli
