// The engine's side of State: what the loop of `for (auto _ : state)` asks between batches,
// and the objects a case keeps alive for its operation (State::keep).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace benchledger::detail {

class CaseControl {
 public:
  CaseControl() = default;
  CaseControl(const CaseControl&) = delete;
  CaseControl& operator=(const CaseControl&) = delete;
  // The kept objects go last, newest first, like the locals they stand in for. The control
  // outlives every State and the operation of its case (measure.cpp declares it first).
  virtual ~CaseControl() {
    while (!m_kept.empty()) m_kept.pop_back();
  }
  // The first batch of iterations for worker `thread`, once every worker has arrived (0:
  // the case was aborted). Throws Error when the case does not loop (OPS mode).
  virtual std::int64_t start_loop(int thread) = 0;
  // Worker `thread` ran its batch, timing busy_ns; returns its next batch or 0 when done.
  virtual std::int64_t batch_done(int thread, std::int64_t busy_ns) = 0;
  virtual void set_items_per_op(double items) = 0;

  void keep(std::shared_ptr<void> object) {
    const std::lock_guard lock(m_kept_mutex);
    m_kept.push_back(std::move(object));
  }

 private:
  std::mutex m_kept_mutex;
  std::vector<std::shared_ptr<void>> m_kept;
};

}  // namespace benchledger::detail
