// Stop signals (stop_signals.hpp): a handler that only remembers the signal and passes it on with
// kill(2), both async-signal-safe; everything else happens in the command's own code.
#include "engine/stop_signals.hpp"

#include <signal.h>

#include <atomic>
#include <csignal>
#include <iterator>
#include <tuple>

#include <fmt/format.h>

namespace benchledger::engine {

namespace {

constexpr int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t g_stop_signal = 0;
// Where the signal goes (kill's first argument), 0 in a free slot: set_stop_target's in the
// first, add_stop_target's in any (a gate's duet runs two steps at once). Lock-free atomics, so
// that the handler may read them.
std::atomic<pid_t> g_stop_targets[2];
static_assert(std::atomic<pid_t>::is_always_lock_free);
struct sigaction g_previous[std::size(k_stop_signals)];
bool g_installed = false;  // a StopSignals lives

void put_back_previous_handlers() {
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    std::ignore = ::sigaction(k_stop_signals[i], &g_previous[i], nullptr);
  }
}

extern "C" void on_stop_signal(int signal) {
  if (g_stop_signal == 0) g_stop_signal = signal;
  // kill is async-signal-safe; the step ends, and the command with it after cleaning up.
  for (const std::atomic<pid_t>& slot : g_stop_targets) {
    const pid_t target = slot.load();
    if (target != 0) std::ignore = ::kill(target, signal);
  }
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking read or wait returns EINTR and is retried
  for (std::size_t i = 0; i < std::size(k_stop_signals); ++i) {
    std::ignore = ::sigaction(k_stop_signals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler == SIG_IGN) continue;  // `nohup`, or `&` in a script
    std::ignore = ::sigaction(k_stop_signals[i], &action, nullptr);
  }
  g_installed = true;
}

StopSignals::~StopSignals() {
  put_back_previous_handlers();
  g_installed = false;
}

void restore_stop_signals_in_child() {
  if (g_installed) put_back_previous_handlers();
}

int stop_signal() {
  return g_stop_signal;
}

void set_stop_target(pid_t target) {
  g_stop_targets[0] = target;
}

void add_stop_target(pid_t target) {
  for (std::atomic<pid_t>& slot : g_stop_targets) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, target)) return;
  }
  throw Error("more than two stop targets at once");
}

void remove_stop_target(pid_t target) {
  for (std::atomic<pid_t>& slot : g_stop_targets) {
    pid_t mine = target;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

StopTarget::StopTarget(pid_t target, bool stopped_before_start) {
  g_stop_targets[0] = target;
  // A signal that came after the child started, before it had a target to be passed to.
  if (!stopped_before_start && g_stop_signal != 0) std::ignore = ::kill(target, g_stop_signal);
}

StopTarget::~StopTarget() {
  g_stop_targets[0] = 0;
}

process::Exit run_passing_stops(const process::Spec& spec, bool beside_another) {
  const bool stopped_before = stop_signal() != 0;
  process::Child child(spec);
  const pid_t target = child.signal_target();
  if (!beside_another) {
    const StopTarget stop_target(target, stopped_before);
    child.settle();
  } else {
    add_stop_target(target);
    // A signal that came after the child started, before it had a target to be passed to.
    if (!stopped_before && g_stop_signal != 0) std::ignore = ::kill(target, g_stop_signal);
    child.settle();  // throws nothing but bad_alloc, which ends the process anyway
    remove_stop_target(target);
  }
  return child.reap();
}

process::Exit StopPassingExecutor::run(const process::Spec& spec) {
  return run_passing_stops(spec, m_beside_another);
}

Stopped::Stopped(int signal)
    : Error(fmt::format("stopped by signal {} (SIG{})", signal, ::sigabbrev_np(signal))),
      m_signal(signal) {}

void throw_if_stopped() {
  if (g_stop_signal != 0) throw Stopped(g_stop_signal);
}

}  // namespace benchledger::engine
