// The native benchmark API (docs/engine.md): a user's C++ file registers benchmarks
// and gets a `main` that takes the flags of `benchledger run` and appends one run with its
// results to a ledger.
//
//   BENCHLEDGER_BENCH("sort/copy", [](benchledger::State& state) {
//     std::vector<int> input = make_input(state.int_param("n"));   // setup, once per case
//     for (auto _ : state) {                                       // timed
//       std::vector<int> v = input;
//       std::sort(v.begin(), v.end());
//       benchledger::do_not_optimize(v.data());
//     }
//   }).param("n", {1000, 100000});
//
//   BENCHLEDGER_OPS("pool/select1", [](benchledger::State& state) {
//     auto& pool = state.make_kept<Pool>(state.int_param("size"));  // setup, once per case
//     pool.warm();
//     return [&] { pool.query("SELECT 1"); };                       // one timed operation
//   }).param("size", {10}).concurrency({1, 10, 50});
//
//   BENCHLEDGER_MAIN()
//
// An OPS operation outlives its factory: what `[&]` captures must be kept by the case with
// state.keep(value) or state.make_kept<T>(args...) (or captured by value), never a plain
// local of the factory, which is dead when the operation runs.
//
// Each combination of param values (and each concurrency level) is one case; a case's
// identity in the ledger is its name plus its params (concurrency is the param
// `concurrency`). A case runs in a forked child process, so that a crash or a hang is
// recorded as a failed case while the other cases still run.
//
// BENCH: the function is called once per case (once per worker thread when a concurrency is
// given) and its `for (auto _ : state)` loop runs calibration, warm-up and every measured
// repetition; each repetition's mean time per iteration is one sample of the metric `time`.
// A throw from the function fails the case.
//
// OPS: the function is called once per case and returns the operation; the engine calls it
// from C worker threads sharing each repetition's operation budget, times every call on its
// own (metric `latency`, percentiles from a log-linear histogram), and counts a call that
// throws as an error without stopping. The operation must be safe to call from C threads at
// once when a concurrency above 1 is declared.
//
// docs/engine.md describes the measurement, the metrics and how a failed case is recorded.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

// Keeps the compiler from deleting a computation whose result is otherwise unused: the value
// is treated as read (and, for a non-const lvalue, possibly written) by opaque code.
template <class T>
inline __attribute__((always_inline)) void do_not_optimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}
template <class T>
inline __attribute__((always_inline)) void do_not_optimize(T& value) {
  if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(void*)) {
    asm volatile("" : "+m,r"(value) : : "memory");
  } else {
    asm volatile("" : "+m"(value) : : "memory");
  }
}
// Forces every pending write to memory to happen here (a compiler barrier, no instruction).
inline __attribute__((always_inline)) void clobber_memory() {
  asm volatile("" : : : "memory");
}

namespace detail {
class CaseControl;
}

// What an OPS operation throws to count its error under a code (a SQLSTATE such as 53300, an
// HTTP status): the result counts it in `errors` like any other throw, and also records how
// many errors each code had (`error_codes`, docs/engine.md), so that none is dropped unnamed.
class OperationError : public Error {
 public:
  OperationError(std::string code, const std::string& message)
      : Error(message), m_code(std::move(code)) {}
  const std::string& code() const { return m_code; }

 private:
  std::string m_code;
};

// What State::fail() throws: ends the case as failed, also from inside an OPS operation
// (where any other exception only counts as an error).
class CaseFailed : public Error {
 public:
  using Error::Error;
};

// What a benchmark function sees: the case's params, the worker it runs on, and (in BENCH
// mode) the loop that the engine times.
class State {
 public:
  struct __attribute__((unused)) Tick {};

  // The iterator of `for (auto _ : state)`. The hot path is one decrement and one compare;
  // the engine takes over only when a batch of iterations is done.
  class Iterator {
   public:
    Iterator(State* state, std::int64_t left) : m_state(state), m_left(left) {}
    // The hot path is one decrement and one branch: operator++ counts the batch down and
    // asks the engine for the next one when it is spent, operator!= only tests. m_left's
    // address never escapes (next_batch returns the new count), so it stays in a register,
    // also across a compiler barrier in the body.
    __attribute__((always_inline)) bool operator!=(const Iterator& /*end*/) const {
      return m_left != 0;
    }
    __attribute__((always_inline)) void operator++() {
      if (__builtin_expect(--m_left == 0, 0)) m_left = m_state->next_batch();
    }
    __attribute__((always_inline)) Tick operator*() const { return {}; }

   private:
    State* m_state;
    std::int64_t m_left;
  };

  // BENCH mode only: starts the loop (the engine decides batch sizes). Throws Error in OPS
  // mode or when called a second time.
  Iterator begin();
  Iterator end() { return {this, 0}; }

  // Stops and restarts the clock inside the loop, for work a repetition needs but must not
  // time (a fresh table before each insert batch). Each pair costs about two clock reads.
  void pause_timing();
  void resume_timing();

  // The case's params. Throws Error naming the param when it is absent or of another type;
  // int_param accepts only integers, double_param integers and doubles.
  const Params& params() const { return m_params; }
  const ParamValue& param(std::string_view name) const;
  std::int64_t int_param(std::string_view name) const;
  double double_param(std::string_view name) const;
  std::string string_param(std::string_view name) const;
  bool bool_param(std::string_view name) const;

  // The concurrency of the case (1 when none was declared) and, in BENCH mode, which of the
  // worker threads this is (0 … concurrency-1; always 0 in OPS mode's setup).
  int concurrency() const { return m_concurrency; }
  int thread_index() const { return m_thread_index; }

  // Each iteration (BENCH) or operation (OPS) processes this many items (rows, tasks,
  // records): adds the metric `items` (items/s, higher is better).
  void set_items_per_op(double items);

  // Ends the case as failed with this reason (no measurement is recorded). Throws; do not
  // catch what it throws.
  [[noreturn]] void fail(const std::string& reason);

  // Setup that an OPS operation may capture by reference. The factory's own locals die when
  // it returns, so `return [&] { use(local); };` would read a dead object; an object handed
  // to keep() (moved or copied in) or built by make_kept<T>(args...) belongs to the case and
  // lives until the case ends, after the operation is destroyed, so
  //   auto& data = state.keep(make_input(n));
  //   return [&] { use(data); };
  // is valid (the State itself also outlives the operation). Objects are destroyed in the
  // reverse order of keeping. Safe to call from several threads; the object itself is shared
  // by every worker thread when a concurrency is declared.
  template <class T>
  std::decay_t<T>& keep(T&& value) {
    return make_kept<std::decay_t<T>>(std::forward<T>(value));
  }
  template <class T, class... Args>
  T& make_kept(Args&&... args) {
    auto object = std::make_shared<T>(std::forward<Args>(args)...);
    T& reference = *object;
    keep_object(std::move(object));
    return reference;
  }

  State(detail::CaseControl* control, const Params* params, int concurrency, int thread_index);
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State();

 private:
  std::int64_t next_batch();  // the next batch's size, 0 when the loop is over
  // Hands a kept object to the case (State::keep).
  void keep_object(std::shared_ptr<void> object);

  detail::CaseControl* m_control;
  const Params& m_params;
  int m_concurrency;
  int m_thread_index;
  bool m_started = false;
  bool m_paused = false;
  std::int64_t m_batch = 0;
  std::int64_t m_segment_start = 0;  // ns, steady clock
  std::int64_t m_busy = 0;           // ns timed in this batch so far
};

// One operation of OPS mode, type-erased without allocation per call.
class Operation {
 public:
  Operation() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Operation>>>
  explicit Operation(F&& f)
      : m_holder(std::make_shared<std::decay_t<F>>(std::forward<F>(f))),
        m_call([](void* p) { (*static_cast<std::decay_t<F>*>(p))(); }) {}
  void operator()() const { m_call(m_holder.get()); }
  explicit operator bool() const { return m_call != nullptr; }
  // The call as a plain function and context, for the engine's timing loop.
  void (*function() const)(void*) { return m_call; }
  void* context() const { return m_holder.get(); }

 private:
  std::shared_ptr<void> m_holder;
  void (*m_call)(void*) = nullptr;
};

using BenchFunction = std::function<void(State&)>;
using OpsFactory = std::function<Operation(State&)>;

// One param value as written in a registration: an integer, a floating-point number, a bool
// or a string.
class ParamArg {
 public:
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  ParamArg(T value) : m_value(static_cast<std::int64_t>(value)) {}  // NOLINT: implicit on purpose
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  ParamArg(T value) : m_value(static_cast<double>(value)) {}    // NOLINT
  ParamArg(bool value) : m_value(value) {}                      // NOLINT
  ParamArg(const char* value) : m_value(std::string(value)) {}  // NOLINT
  ParamArg(std::string value) : m_value(std::move(value)) {}    // NOLINT
  const ParamValue& value() const { return m_value; }

 private:
  ParamValue m_value;
};

// A registered benchmark: its name, body and declared params. Every setter returns *this so
// that registrations chain; each applies to every case of the benchmark, and a flag given on
// the command line overrides the defaults set here.
class Benchmark {
 public:
  enum class Mode { bench, ops };

  Benchmark(std::string name, BenchFunction body);
  Benchmark(std::string name, OpsFactory factory);

  // Declares a param and its values; the cases are every combination, the first declared
  // param varying slowest. Throws Error on an empty list or a repeated name.
  Benchmark& param(const std::string& name, std::initializer_list<ParamArg> values);
  Benchmark& param(const std::string& name, const std::vector<ParamValue>& values);
  // The concurrency levels: C worker threads per case, each level its own case.
  Benchmark& concurrency(std::initializer_list<int> levels);
  Benchmark& concurrency(const std::vector<int>& levels);
  // Defaults for this benchmark's cases (the command line's flags win). Each throws Error
  // outside the range its flag takes (docs/engine.md): repetitions 1 to 1,000,000, warmup 0
  // to 1,000,000, min_time above 0 and at most 3600 s, timeout above 0 and at most a week.
  Benchmark& repetitions(int count);
  Benchmark& warmup(int count);
  Benchmark& min_time(double seconds);  // minimum duration of one repetition
  Benchmark& timeout(double seconds);   // a case running longer fails
  // A fixed number of iterations (BENCH) or operations (OPS) per repetition instead of the
  // calibrated one (the executors suite's 1,000 tasks, for example).
  Benchmark& ops_per_repetition(std::int64_t count);
  // The iterations or operations over all measured repetitions, whatever their number, are
  // the case's integer param `param` (so the total is part of the case's identity): each
  // repetition takes an equal share (the first ones one more when it does not divide),
  // warm-up repetitions the larger share. For a workload defined by its total (the sqlite
  // suite's rows=2000 inserts). Not with ops_per_repetition.
  Benchmark& ops_per_case(const std::string& param);

  const std::string& name() const { return m_name; }
  Mode mode() const { return m_mode; }
  const BenchFunction& body() const { return m_body; }
  const OpsFactory& factory() const { return m_factory; }
  const std::vector<std::pair<std::string, std::vector<ParamValue>>>& declared_params() const {
    return m_params;
  }
  const std::vector<int>& concurrency_levels() const { return m_concurrency; }
  int default_repetitions() const { return m_repetitions; }
  int default_warmup() const { return m_warmup; }
  double default_min_time() const { return m_min_time; }
  double default_timeout() const { return m_timeout; }
  std::int64_t fixed_ops() const { return m_fixed_ops; }
  const std::string& total_ops_param() const { return m_total_ops_param; }

 private:
  std::string m_name;
  Mode m_mode;
  BenchFunction m_body;
  OpsFactory m_factory;
  std::vector<std::pair<std::string, std::vector<ParamValue>>> m_params;
  std::vector<int> m_concurrency;
  int m_repetitions = 0;          // 0: the run's default
  int m_warmup = -1;              // -1: the run's default
  double m_min_time = 0;          // 0: the run's default
  double m_timeout = 0;           // 0: the run's default
  std::int64_t m_fixed_ops = 0;   // 0: calibrated
  std::string m_total_ops_param;  // empty: none (ops_per_case)
};

// An ordered list of benchmarks: the one BENCHLEDGER_BENCH and BENCHLEDGER_OPS add to, or a
// bundled suite's own.
class Registry {
 public:
  // Two benchmarks may share a name when their params tell their cases apart (a param only
  // some variants have); a case declared twice is an Error when the cases are expanded.
  Benchmark& add(Benchmark benchmark);
  const std::vector<std::unique_ptr<Benchmark>>& benchmarks() const { return m_benchmarks; }

  template <class F>
  Benchmark& bench(std::string name, F&& body) {
    return add(Benchmark(std::move(name), BenchFunction(std::forward<F>(body))));
  }
  template <class F>
  Benchmark& ops(std::string name, F&& factory) {
    return add(Benchmark(
        std::move(name),
        OpsFactory([f = std::forward<F>(factory)](State& s) mutable { return Operation(f(s)); })));
  }

 private:
  std::vector<std::unique_ptr<Benchmark>> m_benchmarks;
};

// The registry of this program's BENCHLEDGER_BENCH and BENCHLEDGER_OPS.
Registry& global_registry();

// The main of BENCHLEDGER_MAIN: parses the flags of `benchledger run`, runs the global
// registry's cases, appends the run to the ledger, prints the summary. Returns the exit code
// (0 every case measured, 1 a case failed, 2 a usage or data error). `compiler` and
// `build_type` describe the code being measured, for the environment record. Defined in
// benchledger::main (libbenchledger_main), which such a program links.
int native_main(int argc, char** argv, const char* compiler, const char* build_type);

}  // namespace benchledger

#define BENCHLEDGER_CONCAT_INNER(a, b) a##b
#define BENCHLEDGER_CONCAT(a, b) BENCHLEDGER_CONCAT_INNER(a, b)
#define BENCHLEDGER_UNIQUE(prefix) BENCHLEDGER_CONCAT(prefix, __COUNTER__)

// Registers a BENCH-mode benchmark; chain .param(), .concurrency() and the others after it.
#define BENCHLEDGER_BENCH(name, ...)                                    \
  [[maybe_unused]] static ::benchledger::Benchmark& BENCHLEDGER_UNIQUE( \
      benchledger_registration_) = ::benchledger::global_registry().bench(name, __VA_ARGS__)

// Registers an OPS-mode benchmark: the function returns the operation to time.
#define BENCHLEDGER_OPS(name, ...)                                      \
  [[maybe_unused]] static ::benchledger::Benchmark& BENCHLEDGER_UNIQUE( \
      benchledger_registration_) = ::benchledger::global_registry().ops(name, __VA_ARGS__)

#if defined(__clang__)
#define BENCHLEDGER_COMPILER_ "clang " __clang_version__
#elif defined(__GNUC__)
#define BENCHLEDGER_COMPILER_ "gcc " __VERSION__
#else
#define BENCHLEDGER_COMPILER_ "unknown"
#endif
#ifdef NDEBUG
#define BENCHLEDGER_BUILD_TYPE_ "Release"
#else
#define BENCHLEDGER_BUILD_TYPE_ "Debug"
#endif

// Defines main() for a program of BENCHLEDGER_BENCH / BENCHLEDGER_OPS registrations.
#define BENCHLEDGER_MAIN()                                                                         \
  int main(int argc, char** argv) {                                                                \
    return ::benchledger::native_main(argc, argv, BENCHLEDGER_COMPILER_, BENCHLEDGER_BUILD_TYPE_); \
  }
