// A program for the profile tests: the base does its work in `base_work`; with EXPLAIN_SIDE=head
// it also calls `added_work`, the one function whose cost the head adds. Loops of fixed length,
// so that callgrind counts the same instructions every time.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// noinline: each stays a function of its own in the profile at -O2. The build with
// EXPLAIN_FIXTURE_INLINED is the same program with base_work inlined into main: a head that
// inlines differently.
#ifdef EXPLAIN_FIXTURE_INLINED
[[gnu::always_inline]] inline std::uint64_t base_work(std::uint64_t seed) {
#else
[[gnu::noinline]] std::uint64_t base_work(std::uint64_t seed) {
#endif
  for (int i = 0; i < 200000; ++i) seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return seed;
}

[[gnu::noinline]] std::uint64_t added_work(std::uint64_t seed) {
  for (int i = 0; i < 100000; ++i) seed = (seed ^ (seed >> 7)) * 2862933555777941757ULL + 3;
  return seed;
}

}  // namespace

int main() {
  const char* side = std::getenv("EXPLAIN_SIDE");
  std::uint64_t value = base_work(1);
  if (side != nullptr && std::strcmp(side, "head") == 0) value = added_work(value);
  std::printf("%llu\n", static_cast<unsigned long long>(value));
  return 0;
}
