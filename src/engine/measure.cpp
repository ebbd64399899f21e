// Measuring one native case: the phase machine (calibration, warm-up, repetitions), BENCH
// mode's loop control across worker threads, and OPS mode's timed operations.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <benchledger/benchledger.hpp>
#include <benchledger/error.hpp>

#include "engine/case_control.hpp"
#include "engine/clock.hpp"
#include "engine/histogram.hpp"
#include "engine/instructions.hpp"
#include "engine/native.hpp"
#include "engine/peak_rss.hpp"
#include "stats/order_statistics.hpp"

namespace benchledger::engine {

namespace {

std::string describe_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

// No loop iteration or operation takes less than a fraction of a clock cycle: a quarter of
// one at 5 GHz. Anything faster is a body the compiler removed (or hoisted out of the loop).
constexpr double k_implausible_ns_per_op = 0.05;

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

// Decides batch sizes and keeps the samples. A batch is `n` iterations per worker (BENCH)
// or `n` operations shared by the workers (OPS).
class PhaseMachine {
 public:
  PhaseMachine(const NativeCase& c, const PhaseSink& sink)
      : m_case(c),
        m_sink(sink),
        m_target_ns(std::max(c.min_time * 1e9, 1000.0 * clock_read_ns())) {}

  std::int64_t first_batch() {
    if (m_case.fixed_ops > 0 || m_case.total_ops > 0) {
      m_n = m_case.fixed_ops > 0 ? m_case.fixed_ops : share_of_total(0);
      set_phase(m_case.warmup > 0 ? Phase::warmup : Phase::measuring);
    } else {
      m_n = 1;
      set_phase(Phase::calibrating);
    }
    return m_n;
  }

  // The batch just run took wall_ns, its operations busy_ns in total; returns the next
  // batch size, 0 when the case is done.
  std::int64_t after_batch(std::int64_t wall_ns, std::int64_t busy_ns, std::int64_t ops) {
    switch (m_phase) {
      case Phase::calibrating:
        if (static_cast<double>(wall_ns) >= m_target_ns || m_n >= k_max_batch) {
          // The last calibration batch ran at the final size: it is the first warm-up.
          m_warmups_done = 1;
          set_phase(m_warmups_done >= m_case.warmup ? Phase::measuring : Phase::warmup);
        } else {
          m_n = grow(m_n, wall_ns);
          emit();
        }
        break;
      case Phase::warmup:
        if (++m_warmups_done >= m_case.warmup)
          set_phase(Phase::measuring);
        else
          emit();
        break;
      case Phase::measuring: {
        if (ops > 0) {
          m_time_ns.push_back(static_cast<double>(busy_ns) / static_cast<double>(ops));
          const double wall_s = std::max<double>(static_cast<double>(wall_ns), 1.0) / 1e9;
          m_throughput.push_back(static_cast<double>(ops) / wall_s);
          m_ops += ops;
        }
        m_last_repetition_s = static_cast<double>(wall_ns) / 1e9;
        if (static_cast<double>(wall_ns) < 1000.0 * clock_read_ns() && !m_short_warning) {
          m_short_warning = fmt::format(
              "a repetition lasted {}, so the clock's overhead ({:.0f} ns a read) is "
              "more than 0.1% "
              "of it; raise ops_per_repetition",
              format_duration_ns(static_cast<double>(wall_ns)), clock_read_ns());
        }
        if (static_cast<int>(m_time_ns.size()) >= m_case.repetitions) {
          set_phase(Phase::done);
          return 0;
        }
        if (m_case.total_ops > 0) m_n = share_of_total(m_time_ns.size());
        emit();
        break;
      }
      case Phase::done:
        return 0;
    }
    return m_n;
  }

  bool measuring() const { return m_phase == Phase::measuring; }
  bool done() const { return m_phase == Phase::done; }
  std::int64_t ops() const { return m_ops; }
  std::int64_t batch() const { return m_n; }
  std::vector<double>& time_ns() { return m_time_ns; }
  std::vector<double>& throughput() { return m_throughput; }
  std::vector<std::string>& warnings() { return m_warnings; }
  // Set when a measured repetition was too short for the clock: worth a warning unless the
  // time per operation says the work was deleted (then longer repetitions do not help).
  const std::optional<std::string>& short_warning() const { return m_short_warning; }

 private:
  enum class Phase { calibrating, warmup, measuring, done };
  static constexpr std::int64_t k_max_batch = std::int64_t{1} << 40;

  // With ops_per_case, measured repetition i's share of the total: the first (total mod
  // repetitions) take one more. Warm-up runs at the first, larger share.
  std::int64_t share_of_total(std::size_t repetition) const {
    const auto repetitions = static_cast<std::int64_t>(std::max(m_case.repetitions, 1));
    const std::int64_t share = m_case.total_ops / repetitions;
    return share + (static_cast<std::int64_t>(repetition) < m_case.total_ops % repetitions ? 1 : 0);
  }

  std::int64_t grow(std::int64_t n, std::int64_t wall_ns) const {
    // Like google-benchmark: aim 40% past the target, at most tenfold per step.
    double factor = 10;
    if (wall_ns > 0 && static_cast<double>(wall_ns) > m_target_ns / 10) {
      factor = std::min(10.0, 1.4 * m_target_ns / static_cast<double>(wall_ns));
    }
    const auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(n) * factor));
    return std::min(std::max(next, n + 1), k_max_batch);
  }

  void set_phase(Phase phase) {
    m_phase = phase;
    emit();
  }

  void emit() const {
    if (!m_sink) return;
    CasePhase p;
    switch (m_phase) {
      case Phase::calibrating:
        p.phase = "calibrating";
        break;
      case Phase::warmup:
        p.phase = "warmup";
        p.done = m_warmups_done;
        p.total = m_case.warmup;
        break;
      case Phase::measuring:
      case Phase::done:
        p.phase = m_phase == Phase::done ? "done" : "measuring";
        p.done = static_cast<int>(m_time_ns.size());
        p.total = m_case.repetitions;
        break;
    }
    p.last_repetition_s = m_last_repetition_s;
    m_sink(p);
  }

  const NativeCase& m_case;
  const PhaseSink& m_sink;
  const double m_target_ns;
  Phase m_phase = Phase::calibrating;
  std::int64_t m_n = 1;
  int m_warmups_done = 0;
  std::int64_t m_ops = 0;
  double m_last_repetition_s = 0;
  std::optional<std::string> m_short_warning;
  std::vector<double> m_time_ns;
  std::vector<double> m_throughput;
  std::vector<std::string> m_warnings;
};

// BENCH mode: the loop of each worker's State asks this between batches. With more than one
// worker, a barrier ends every batch, so that all workers run each repetition together.
class BenchControl final : public detail::CaseControl {
 public:
  BenchControl(PhaseMachine& machine, int workers)
      : m_machine(machine),
        m_workers(workers),
        m_busy(static_cast<std::size_t>(workers), 0),
        m_started(static_cast<std::size_t>(workers), false),
        m_finished(static_cast<std::size_t>(workers), false),
        m_barrier(workers, Completion{this}) {}

  // Instructions are counted (instructions.hpp) from the end of the engine's work for a
  // measured batch to its next call, so only the loop runs counted; with several workers, only
  // while every worker is in its batch (the barrier's completion switches).
  std::int64_t start_loop(int thread) override {
    m_started[static_cast<std::size_t>(thread)] = true;
    if (m_workers == 1) {
      m_next = m_machine.first_batch();
      if (m_next > 0 && m_machine.measuring()) counted_region_begin();
    } else {
      wait_for_workers();
    }
    if (m_next == 0) m_finished[static_cast<std::size_t>(thread)] = true;
    return m_next;
  }

  std::int64_t batch_done(int thread, std::int64_t busy_ns) override {
    if (m_workers == 1) {
      counted_region_end();
      m_next = after_batch(busy_ns, busy_ns);
      if (m_next > 0 && m_machine.measuring()) counted_region_begin();
    } else {
      m_busy[static_cast<std::size_t>(thread)] = busy_ns;
      wait_for_workers();
    }
    if (m_next == 0) m_finished[static_cast<std::size_t>(thread)] = true;
    return m_next;
  }

  void set_items_per_op(double items) override { m_items_per_op = items; }

  // A worker that threw, or returned without finishing its loop, leaves the barrier so the
  // others are not stuck, and the case ends at the next batch boundary.
  void abandon(int thread, std::string reason) {
    {
      const std::lock_guard lock(m_mutex);
      if (m_failure.empty()) m_failure = std::move(reason);
    }
    m_aborted.store(true);
    if (m_workers > 1 && !m_finished[static_cast<std::size_t>(thread)]) m_barrier.arrive_and_drop();
  }

  bool finished(int thread) const { return m_finished[static_cast<std::size_t>(thread)]; }
  bool started(int thread) const { return m_started[static_cast<std::size_t>(thread)]; }
  const std::string& failure() const { return m_failure; }
  double items_per_op() const { return m_items_per_op; }

 private:
  struct Completion {
    BenchControl* control;
    void operator()() noexcept { control->on_barrier(); }
  };

  // Each worker stops counting its own work before the barrier and counts again after it while
  // the batch is measured (instructions.hpp, counted_thread_pause).
  void wait_for_workers() {
    counted_thread_pause();
    m_barrier.arrive_and_wait();
    counted_thread_resume();
  }

  void on_barrier() noexcept {
    try {
      counted_region_end();
      const std::int64_t now = now_ns();
      if (m_aborted.load()) {
        m_next = 0;
      } else if (!m_loop_running) {
        m_loop_running = true;
        m_next = m_machine.first_batch();
      } else {
        std::int64_t busy = 0;
        for (std::int64_t b : m_busy) busy += b;
        m_next = after_batch(now - m_batch_start, busy);
      }
      m_batch_start = now;
      if (m_next > 0 && m_machine.measuring()) counted_region_begin();
    } catch (...) {
      m_failure = describe_exception(std::current_exception());
      m_aborted.store(true);
      m_next = 0;
    }
  }

  std::int64_t after_batch(std::int64_t wall_ns, std::int64_t busy_ns) {
    return m_machine.after_batch(wall_ns, busy_ns, m_machine.batch() * m_workers);
  }

  PhaseMachine& m_machine;
  const int m_workers;
  std::vector<std::int64_t> m_busy;
  std::vector<char> m_started,
      m_finished;  // not vector<bool>: workers write their own entries concurrently
  std::barrier<Completion> m_barrier;
  std::int64_t m_next = 0;
  std::int64_t m_batch_start = 0;
  bool m_loop_running = false;
  std::atomic<bool> m_aborted{false};
  std::mutex m_mutex;
  std::string m_failure;
  double m_items_per_op = 0;
};

// OPS mode's State: no loop, only params and items.
class OpsControl final : public detail::CaseControl {
 public:
  std::int64_t start_loop(int /*thread*/) override {
    throw Error("an OPS benchmark returns its operation; it does not loop over State");
  }
  std::int64_t batch_done(int /*thread*/, std::int64_t /*busy_ns*/) override { return 0; }
  void set_items_per_op(double items) override { m_items_per_op = items; }
  double items_per_op() const { return m_items_per_op; }

 private:
  double m_items_per_op = 0;
};

CaseMeasurement measure_bench(const NativeCase& c, PhaseMachine& machine) {
  const Benchmark& benchmark = *c.benchmark;
  BenchControl control(machine, c.concurrency);
  const auto run_worker = [&](int thread) {
    try {
      State state(&control, &c.params, c.concurrency, thread);
      benchmark.body()(state);
      if (!control.finished(thread)) {
        control.abandon(thread,
                        control.started(thread)
                            ? "the benchmark function left its loop before the engine ended it"
                            : "the benchmark function returned without looping over State");
      }
    } catch (...) {
      control.abandon(thread, describe_exception(std::current_exception()));
    }
  };
  if (c.concurrency == 1) {
    run_worker(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(c.concurrency));
    for (int t = 0; t < c.concurrency; ++t) threads.emplace_back(run_worker, t);
    for (auto& thread : threads) thread.join();
  }
  if (!control.failure().empty()) throw Error(control.failure());
  if (!machine.done()) throw Error("the benchmark ended before its repetitions were measured");
  CaseMeasurement m;
  m.items_per_op = control.items_per_op();
  return m;
}

// One OPS worker's counters, on its own cache lines.
struct alignas(64) OpsWorker {
  LatencyHistogram histogram;
  std::int64_t busy_ns = 0;
  std::int64_t errors = 0;
  std::map<std::string, std::int64_t> error_codes;  // this batch's OperationErrors by code
  std::int64_t first_start = 0;
  std::int64_t last_end = 0;
  std::int64_t done = 0;
};

class CaseAbort {
 public:
  void set(std::string reason) {
    const std::lock_guard lock(m_mutex);
    if (!m_flag.load()) {
      m_reason = std::move(reason);
      m_flag.store(true);
    }
  }
  bool is_set() const { return m_flag.load(std::memory_order_relaxed); }
  const std::string& reason() const { return m_reason; }

 private:
  std::atomic<bool> m_flag{false};
  std::mutex m_mutex;
  std::string m_reason;
};

// Runs operations until `claim` says the batch is spent; times each on its own. The hot path
// is two clock reads, the call, one bucket increment and register arithmetic: everything else
// is folded into the worker once the batch is done.
template <class Claim>
void run_operations(const Operation& op, OpsWorker& worker, Claim&& claim, CaseAbort& abort) {
  void (*const call)(void*) = op.function();
  void* const context = op.context();
  LatencyHistogram& histogram = worker.histogram;
  std::int64_t done = 0, errors = 0, first_start = 0, last_end = 0;
  worker.error_codes.clear();
  std::uint64_t sum = 0, min = ~std::uint64_t{0}, max = 0;
  double sum_squares = 0;
  while (claim()) {
    const std::int64_t start = now_ns();
    try {
      call(context);
    } catch (const CaseFailed& e) {
      abort.set(e.what());
      break;
    } catch (const OperationError& e) {
      ++errors;
      ++worker.error_codes[e.code()];
    } catch (...) {
      ++errors;
    }
    const std::int64_t end = now_ns();
    const auto ns = static_cast<std::uint64_t>(end > start ? end - start : 0);
    histogram.count_bucket(ns);
    sum += ns;
    sum_squares += static_cast<double>(ns) * static_cast<double>(ns);
    min = ns < min ? ns : min;
    max = ns > max ? ns : max;
    if (done == 0) first_start = start;
    ++done;
    last_end = end;
  }
  histogram.add_moments(static_cast<std::uint64_t>(done), sum, sum_squares, min, max);
  worker.busy_ns = static_cast<std::int64_t>(sum);
  worker.errors = errors;
  worker.done = done;
  worker.first_start = first_start;
  worker.last_end = last_end;
}

// The workers of an operations case and what their batches added up to: the machine is told
// of each finished batch, and the measured batches' errors are kept.
class OpsBatches {
 public:
  OpsBatches(std::size_t workers, PhaseMachine& machine)
      : m_count(workers), m_workers(std::make_unique<OpsWorker[]>(workers)), m_machine(machine) {}

  std::size_t size() const { return m_count; }
  OpsWorker& worker(std::size_t w) { return m_workers[w]; }
  std::int64_t first_batch() { return m_machine.first_batch(); }

  // Before a batch: whether it is measured; the histograms start empty at the first that is.
  bool prepare() {
    if (m_machine.measuring() && !m_histograms_cleared) {
      for (std::size_t w = 0; w < m_count; ++w) m_workers[w].histogram.clear();
      m_histograms_cleared = true;
    }
    return m_machine.measuring();
  }

  // Adds a finished batch to the machine; returns the next batch size.
  std::int64_t finish(bool measured) {
    std::int64_t busy = 0, done = 0, first = 0, last = 0;
    for (std::size_t w = 0; w < m_count; ++w) {
      const OpsWorker& worker = m_workers[w];
      if (worker.done == 0) continue;
      busy += worker.busy_ns;
      done += worker.done;
      if (measured) {
        m_errors += worker.errors;
        for (const auto& [code, count] : worker.error_codes) m_error_codes[code] += count;
      }
      first = first == 0 ? worker.first_start : std::min(first, worker.first_start);
      last = std::max(last, worker.last_end);
    }
    return m_machine.after_batch(last - first, busy, done);
  }

  // The measured batches' errors and latencies, every worker's histogram merged.
  CaseMeasurement measurement(double items_per_op) {
    LatencyHistogram all;
    for (std::size_t w = 0; w < m_count; ++w) all.merge(m_workers[w].histogram);
    CaseMeasurement m;
    m.items_per_op = items_per_op;
    m.errors = m_errors;
    m.error_codes = std::move(m_error_codes);
    LatencySummary latency;
    latency.n = static_cast<std::int64_t>(all.count());
    latency.mean = all.mean();
    latency.stddev = all.stddev();
    latency.min = static_cast<double>(all.min());
    latency.max = static_cast<double>(all.max());
    latency.p50 = all.quantile(0.50);
    latency.p90 = all.quantile(0.90);
    latency.p95 = all.quantile(0.95);
    latency.p99 = all.quantile(0.99);
    latency.p999 = all.quantile(0.999);
    m.latency = latency;
    return m;
  }

 private:
  std::size_t m_count;
  std::unique_ptr<OpsWorker[]> m_workers;
  PhaseMachine& m_machine;
  std::int64_t m_errors = 0;
  std::map<std::string, std::int64_t> m_error_codes;
  bool m_histograms_cleared = false;
};

// Every batch on this thread.
void run_batches_here(const Operation& op, OpsBatches& batches, CaseAbort& abort) {
  std::int64_t n = batches.first_batch();
  while (n > 0 && !abort.is_set()) {
    const bool measured = batches.prepare();
    std::int64_t left = n;
    if (measured) counted_region_begin();
    run_operations(
        op, batches.worker(0), [&left] { return left-- > 0; }, abort);
    counted_region_end();
    if (abort.is_set()) break;
    n = batches.finish(measured);
  }
}

// Every batch on persistent workers: two barriers per batch (start, end) with this thread as
// the (C+1)th participant, so no thread is created inside a measured batch.
void run_batches_on_workers(const Operation& op, OpsBatches& batches, CaseAbort& abort) {
  const auto participants = static_cast<std::ptrdiff_t>(batches.size()) + 1;
  std::barrier start_line(participants);
  std::barrier finish_line(participants);
  std::atomic<std::int64_t> next_op{0};
  std::int64_t budget = 0;
  bool stop = false;
  std::vector<std::thread> threads;
  threads.reserve(batches.size());
  for (std::size_t w = 0; w < batches.size(); ++w) {
    threads.emplace_back([&, w] {
      while (true) {
        start_line.arrive_and_wait();
        if (stop) return;
        counted_thread_resume();
        run_operations(
            op, batches.worker(w),
            [&] {
              return !abort.is_set() && next_op.fetch_add(1, std::memory_order_relaxed) < budget;
            },
            abort);
        counted_thread_pause();
        finish_line.arrive_and_wait();
      }
    });
  }
  std::int64_t n = batches.first_batch();
  while (n > 0 && !abort.is_set()) {
    const bool measured = batches.prepare();
    budget = n;
    next_op.store(0);
    if (measured) counted_region_begin();  // the barriers' waits are counted too
    start_line.arrive_and_wait();
    finish_line.arrive_and_wait();
    counted_region_end();
    if (abort.is_set()) break;
    n = batches.finish(measured);
  }
  stop = true;
  start_line.arrive_and_wait();
  for (auto& thread : threads) thread.join();
}

CaseMeasurement measure_ops(const NativeCase& c, PhaseMachine& machine) {
  // Declared in this order so that the operation goes first, then the State it may capture
  // by reference, then the objects kept with State::keep (held by the control).
  OpsControl control;
  State state(&control, &c.params, c.concurrency, 0);
  Operation op = c.benchmark->factory()(state);
  if (!op) throw Error("the benchmark function returned no operation");

  OpsBatches batches(static_cast<std::size_t>(c.concurrency), machine);
  CaseAbort abort;
  if (batches.size() == 1) {
    run_batches_here(op, batches, abort);
  } else {
    run_batches_on_workers(op, batches, abort);
  }
  if (abort.is_set()) throw Error(abort.reason());

  CaseMeasurement m = batches.measurement(control.items_per_op());
  if (m.latency->n > 0 && m.latency->mean < 20 * clock_read_ns()) {
    m.warnings.push_back(fmt::format(
        "operations take {:.0f} ns on average and timing each adds about {:.0f} ns (two clock "
        "reads): per-operation latencies are dominated by the clock",
        m.latency->mean, 2 * clock_read_ns()));
  }
  return m;
}

}  // namespace

CaseMeasurement measure_case(const NativeCase& c, const PhaseSink& sink) {
  if (c.benchmark == nullptr) throw Error("case \"" + c.bench + "\" has no benchmark");
  reset_peak_rss();
  if (sink) sink(CasePhase{"setup", 0, 0, 0});
  PhaseMachine machine(c, sink);
  CaseMeasurement m = c.benchmark->mode() == Benchmark::Mode::bench ? measure_bench(c, machine)
                                                                    : measure_ops(c, machine);
  m.time_ns = std::move(machine.time_ns());
  m.throughput = std::move(machine.throughput());
  m.ops = machine.ops();
  m.ops_per_repetition =
      machine.batch() * (c.benchmark->mode() == Benchmark::Mode::bench ? c.concurrency : 1);
  m.peak_rss_bytes = peak_rss_bytes();
  auto& warnings = machine.warnings();
  const double median_ns = m.time_ns.empty() ? 0 : stats::median(m.time_ns);
  if (!m.time_ns.empty() && median_ns < k_implausible_ns_per_op) {
    warnings.push_back(fmt::format(
        "{:.2g} ns per {} is less than a clock cycle can do: the compiler probably deleted the "
        "loop's body or its work; keep the results with benchledger::do_not_optimize(value) or "
        "benchledger::clobber_memory()",
        median_ns, c.benchmark->mode() == Benchmark::Mode::bench ? "iteration" : "operation"));
  } else if (machine.short_warning()) {
    warnings.push_back(*machine.short_warning());
  }
  m.warnings.insert(m.warnings.begin(), warnings.begin(), warnings.end());
  return m;
}

}  // namespace benchledger::engine
