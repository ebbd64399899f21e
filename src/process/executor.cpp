#include "process/executor.hpp"

#include <chrono>
#include <thread>

namespace benchledger::process {

namespace {

class StartedChild : public Started {
 public:
  explicit StartedChild(const Spec& spec) : m_child(spec) {}
  bool has_exited() override { return m_child.has_exited(); }
  void stop(int signal, std::chrono::milliseconds grace) noexcept override {
    m_child.stop(signal, grace);
  }

 private:
  Child m_child;  // its destructor kills and reaps a child not stopped
};

}  // namespace

std::unique_ptr<Started> Executor::start(const Spec& spec) {
  return std::make_unique<StartedChild>(spec);
}

void Executor::pause(std::int64_t ns) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
}

Exit SystemExecutor::run(const Spec& spec) {
  return process::run(spec);
}

std::int64_t SystemExecutor::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace benchledger::process
