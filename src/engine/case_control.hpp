// The engine's side of State: what the loop of `for (auto _ : state)` asks between batches.
#pragma once

#include <cstdint>

namespace benchledger::detail {

class CaseControl {
 public:
  virtual ~CaseControl() = default;
  // The first batch of iterations for worker `thread`, once every worker has arrived (0:
  // the case was aborted). Throws Error when the case does not loop (OPS mode).
  virtual std::int64_t start_loop(int thread) = 0;
  // Worker `thread` ran its batch, timing busy_ns; returns its next batch or 0 when done.
  virtual std::int64_t batch_done(int thread, std::int64_t busy_ns) = 0;
  virtual void set_items_per_op(double items) = 0;
};

}  // namespace benchledger::detail
