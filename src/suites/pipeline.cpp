// The `pipeline` suite (a paged fetch, as sync engines publish it): fetch N pages of 100 records
// from a store with simulated latency L, transform them, store them back — sequentially, and
// pipelined (fetching, transforming and storing in three stages that overlap, so waiting for a
// write no longer blocks the next read).
//
// Params: `mode` (sequential, pipelined), `pages` N, `page_size` (100), `latency_ms` L as the
// seed states it, and `latency_scale`: each simulated call sleeps latency_ms * latency_scale,
// so that the default run stays short (0.02: a 300 ms call sleeps 6 ms). The store instance
// is built once per case and warmed by the warm-up.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "suites/suites.hpp"

namespace benchledger::suites {

namespace {

struct Item {
  std::int64_t id = 0;
  std::string name;
  double value = 0;
  std::uint64_t checksum = 0;
};

class SimulatedStore {
 public:
  SimulatedStore(std::int64_t page_size, std::chrono::nanoseconds latency)
      : m_page_size(page_size), m_latency(latency) {}

  std::vector<Item> fetch(std::int64_t page) const {
    std::this_thread::sleep_for(m_latency);
    std::vector<Item> items(static_cast<std::size_t>(m_page_size));
    for (std::int64_t i = 0; i < m_page_size; ++i) {
      Item& item = items[static_cast<std::size_t>(i)];
      item.id = page * m_page_size + i;
      item.name = fmt::format("record-{:08d}-lowercase-name", item.id);
      item.value = static_cast<double>(item.id) * 0.5;
    }
    return items;
  }

  void store(const std::vector<Item>& items) {
    std::this_thread::sleep_for(m_latency);
    const std::lock_guard lock(m_mutex);
    for (const Item& item : items) m_checksum ^= item.checksum;
    m_stored += static_cast<std::int64_t>(items.size());
  }

  std::uint64_t checksum() const {
    const std::lock_guard lock(m_mutex);
    return m_checksum;
  }

 private:
  const std::int64_t m_page_size;
  const std::chrono::nanoseconds m_latency;
  mutable std::mutex m_mutex;
  std::uint64_t m_checksum = 0;
  std::int64_t m_stored = 0;
};

// The arbitrary transformation: upper-case the name, scale the value, checksum (FNV-1a).
void transform(std::vector<Item>& items) {
  for (Item& item : items) {
    std::uint64_t hash = 1469598103934665603ULL;
    for (char& c : item.name) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    item.value = item.value * 1.1 + 3;
    item.checksum = hash ^ static_cast<std::uint64_t>(item.value);
  }
}

// A closable bounded queue between two stages.
template <class T>
class Channel {
 public:
  explicit Channel(std::size_t capacity) : m_capacity(capacity) {}
  void send(T value) {
    std::unique_lock lock(m_mutex);
    m_space.wait(lock, [this] { return m_items.size() < m_capacity; });
    m_items.push_back(std::move(value));
    m_ready.notify_one();
  }
  void close() {
    const std::lock_guard lock(m_mutex);
    m_closed = true;
    m_ready.notify_all();
  }
  std::optional<T> receive() {
    std::unique_lock lock(m_mutex);
    m_ready.wait(lock, [this] { return m_closed || !m_items.empty(); });
    if (m_items.empty()) return std::nullopt;
    T value = std::move(m_items.front());
    m_items.pop_front();
    m_space.notify_one();
    return value;
  }

 private:
  const std::size_t m_capacity;
  std::mutex m_mutex;
  std::condition_variable m_ready, m_space;
  std::deque<T> m_items;
  bool m_closed = false;
};

void run_sequential(SimulatedStore& store, std::int64_t pages) {
  for (std::int64_t page = 0; page < pages; ++page) {
    std::vector<Item> items = store.fetch(page);
    transform(items);
    store.store(items);
  }
}

void run_pipelined(SimulatedStore& store, std::int64_t pages) {
  Channel<std::vector<Item>> fetched(1), transformed(1);
  std::thread fetcher([&] {
    for (std::int64_t page = 0; page < pages; ++page) fetched.send(store.fetch(page));
    fetched.close();
  });
  std::thread transformer([&] {
    while (auto items = fetched.receive()) {
      transform(*items);
      transformed.send(std::move(*items));
    }
    transformed.close();
  });
  while (auto items = transformed.receive()) store.store(*items);
  fetcher.join();
  transformer.join();
}

}  // namespace

void define_pipeline(Registry& registry) {
  registry
      .bench("pipeline/fetch_transform_store",
             [](State& state) {
               const std::string mode = state.string_param("mode");
               const std::int64_t pages = state.int_param("pages");
               const std::int64_t page_size = state.int_param("page_size");
               const double latency_ms = state.double_param("latency_ms");
               const double scale = state.double_param("latency_scale");
               if (pages < 1 || page_size < 1) state.fail("pages and page_size must be at least 1");
               if (latency_ms < 0 || scale < 0)
                 state.fail("latency_ms and latency_scale must not be negative");
               if (mode != "sequential" && mode != "pipelined") {
                 state.fail("unknown mode \"" + mode + "\" (known: sequential, pipelined)");
               }
               SimulatedStore store(
                   page_size,
                   std::chrono::nanoseconds(static_cast<std::int64_t>(latency_ms * scale * 1e6)));
               state.set_items_per_op(static_cast<double>(pages * page_size));
               for (auto _ : state) {
                 if (mode == "sequential")
                   run_sequential(store, pages);
                 else
                   run_pipelined(store, pages);
               }
               do_not_optimize(store.checksum());
             })
      .param("mode", {"sequential", "pipelined"})
      .param("pages", {10, 50})
      .param("latency_ms", {20, 300})
      .param("latency_scale", {0.02})
      .param("page_size", {100});
}

}  // namespace benchledger::suites
