// The bundled suites (docs/engine.md, "Bundled suites"), runnable with `bench-run --suite NAME`:
// native versions of the workloads people publish by hand.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <benchledger/benchledger.hpp>

namespace benchledger::suites {

struct Suite {
  std::string name;
  std::string description;
  std::function<void(Registry&)> define;  // registers the suite's benchmarks, named `NAME/...`
};

// Every bundled suite, in the order `run` lists them.
const std::vector<Suite>& bundled_suites();

// The suite of that name, or nullptr.
const Suite* find_suite(std::string_view name);

void define_executors(Registry& registry);
void define_sqlite(Registry& registry);
void define_pipeline(Registry& registry);
void define_postgres(Registry& registry);

}  // namespace benchledger::suites
