// The `executors` suite: task executors under a CPU-bound workload, as users of task
// runners publish it: 1,000 tasks, each sorting a copy of a fingerprinted random
// vector, through a sequential loop, all-at-once threads (no back-pressure, like
// Promise.all) and a bounded pool at a concurrency limit of 50.
//
// Two workloads: `uniform` (every task sorts the same 2,000-element vector) and `mixed`
// (1,000 vectors of uniformly random length 500–2,000, values 1–100). Inputs come from a
// fixed-seed generator whose output the C++ standard does not leave to the library
// (splitmix64, no std::uniform_int_distribution), so they are the same everywhere; their
// SHA-256 and length statistics are params of every case, and each case checks that the
// input it generated matches them.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "suites/suites.hpp"

namespace benchledger::suites {

namespace {

constexpr int k_tasks = 1000;
constexpr int k_limit = 50;

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [low, high] (Lemire's multiply-shift; the bias is below 2^-32 here).
  std::int32_t between(std::int32_t low, std::int32_t high) {
    const auto span = static_cast<std::uint64_t>(high - low) + 1;
    return low + static_cast<std::int32_t>(((next() >> 32) * span) >> 32);
  }

 private:
  std::uint64_t m_state;
};

struct Workload {
  std::vector<std::vector<std::int32_t>> vectors;  // one per task (uniform: one shared)
  std::string sha256_16;                           // first 16 hex digits of the SHA-256
  std::int64_t len_min = 0, len_max = 0;
  double len_mean = 0;
  const std::vector<std::int32_t>& input_of(int task) const {
    return vectors.size() == 1 ? vectors[0] : vectors[static_cast<std::size_t>(task)];
  }
};

// SHA-256 over the count, then each vector's length and values, all little-endian int32.
std::string fingerprint(const std::vector<std::vector<std::int32_t>>& vectors) {
  std::string bytes;
  const auto append = [&bytes](std::int32_t value) {
    const auto u = static_cast<std::uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8)
      bytes.push_back(static_cast<char>((u >> shift) & 0xff));
  };
  append(static_cast<std::int32_t>(vectors.size()));
  for (const auto& v : vectors) {
    append(static_cast<std::int32_t>(v.size()));
    for (std::int32_t x : v) append(x);
  }
  return sha256_hex(bytes).substr(0, 16);
}

Workload make_workload(const std::string& name) {
  Workload w;
  if (name == "uniform") {
    SplitMix64 random(20251122);
    std::vector<std::int32_t> v(2000);
    for (auto& x : v) x = random.between(0, 1'000'000'000);
    w.vectors.push_back(std::move(v));
  } else {
    SplitMix64 random(20251123);
    for (int t = 0; t < k_tasks; ++t) {
      std::vector<std::int32_t> v(static_cast<std::size_t>(random.between(500, 2000)));
      for (auto& x : v) x = random.between(1, 100);
      w.vectors.push_back(std::move(v));
    }
  }
  w.sha256_16 = fingerprint(w.vectors);
  std::int64_t total = 0;
  w.len_min = INT64_MAX;
  for (int t = 0; t < k_tasks; ++t) {
    const auto n = static_cast<std::int64_t>(w.input_of(t).size());
    w.len_min = std::min(w.len_min, n);
    w.len_max = std::max(w.len_max, n);
    total += n;
  }
  w.len_mean = static_cast<double>(total) / k_tasks;
  return w;
}

void sort_task(const std::vector<std::int32_t>& input) {
  std::vector<std::int32_t> copy = input;
  std::sort(copy.begin(), copy.end());
  do_not_optimize(copy.data());
  clobber_memory();
}

// A fixed set of worker threads taking tasks from one queue: the bounded executor.
class BoundedPool {
 public:
  explicit BoundedPool(int workers) {
    m_threads.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) m_threads.emplace_back([this] { work(); });
  }
  ~BoundedPool() {
    {
      const std::lock_guard lock(m_mutex);
      m_stopping = true;
    }
    m_ready.notify_all();
    for (auto& thread : m_threads) thread.join();
  }
  BoundedPool(const BoundedPool&) = delete;
  BoundedPool& operator=(const BoundedPool&) = delete;

  // Runs every task and returns when all are done.
  void run_all(const std::vector<std::function<void()>>& tasks) {
    {
      const std::lock_guard lock(m_mutex);
      for (const auto& task : tasks) m_queue.push_back(&task);
      m_pending += tasks.size();
    }
    m_ready.notify_all();
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_pending == 0; });
  }

 private:
  void work() {
    std::unique_lock lock(m_mutex);
    while (true) {
      m_ready.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
      if (m_queue.empty()) return;  // stopping
      const std::function<void()>* task = m_queue.front();
      m_queue.pop_front();
      lock.unlock();
      (*task)();
      lock.lock();
      if (--m_pending == 0) m_idle.notify_all();
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_ready, m_idle;
  std::deque<const std::function<void()>*> m_queue;
  std::size_t m_pending = 0;
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};

// Builds the tasks of a case after checking that the fingerprint params describe the input.
std::vector<std::function<void()>> checked_tasks(State& state, const Workload& w) {
  if (state.string_param("input_sha256") != w.sha256_16 || state.int_param("tasks") != k_tasks ||
      state.int_param("len_min") != w.len_min || state.int_param("len_max") != w.len_max ||
      state.double_param("len_mean") != w.len_mean) {
    state.fail(
        "the params input_sha256, tasks and len_* describe the suite's fixed input and cannot be "
        "changed");
  }
  state.set_items_per_op(k_tasks);
  std::vector<std::function<void()>> tasks;
  tasks.reserve(k_tasks);
  for (int t = 0; t < k_tasks; ++t) tasks.emplace_back([&w, t] { sort_task(w.input_of(t)); });
  return tasks;
}

Benchmark& describe_input(Benchmark& benchmark, const Workload& described) {
  return benchmark.param("tasks", {k_tasks})
      .param("input_sha256", {described.sha256_16})
      .param("len_min", {described.len_min})
      .param("len_max", {described.len_max})
      .param("len_mean", {described.len_mean});
}

// Two registrations under one name: the unbounded executors, and the pool with its `limit`,
// the only executor a limit changes (so that `--param limit=10` changes only cases whose
// work it changes). Their cases differ in their param names, so they never collide.
void define_workload(Registry& registry, const std::string& name) {
  const Workload described = make_workload(name);
  Benchmark& unbounded = registry.bench("executors/" + name, [name](State& state) {
    const Workload w = make_workload(name);
    const std::vector<std::function<void()>> tasks = checked_tasks(state, w);
    const std::string executor = state.string_param("executor");
    if (executor == "sequential") {
      for (auto _ : state) {
        for (const auto& task : tasks) task();
      }
    } else if (executor == "all_at_once") {
      // Every task started at once on its own thread, no back-pressure.
      for (auto _ : state) {
        std::vector<std::thread> threads;
        threads.reserve(tasks.size());
        for (const auto& task : tasks) threads.emplace_back(task);
        for (auto& thread : threads) thread.join();
      }
    } else {
      state.fail("executor \"" + executor +
                 "\" is not one of this case's (sequential, all_at_once; the pool's cases "
                 "carry its limit): choose executors with --filter");
    }
  });
  describe_input(unbounded.param("executor", {"sequential", "all_at_once"}), described);

  Benchmark& pool = registry.bench("executors/" + name, [name](State& state) {
    const Workload w = make_workload(name);
    const std::vector<std::function<void()>> tasks = checked_tasks(state, w);
    if (state.string_param("executor") != "pool") {
      state.fail("executor \"" + state.string_param("executor") +
                 "\" is not this case's (pool): choose executors with --filter");
    }
    const auto limit = static_cast<int>(state.int_param("limit"));
    if (limit < 1) state.fail("limit must be at least 1");
    BoundedPool bounded(limit);  // built once per case; warmed by the warm-up
    for (auto _ : state) bounded.run_all(tasks);
  });
  describe_input(pool.param("executor", {"pool"}).param("limit", {k_limit}), described);
}

}  // namespace

void define_executors(Registry& registry) {
  define_workload(registry, "uniform");
  define_workload(registry, "mixed");
}

}  // namespace benchledger::suites
