// A per-function profile of one counted case (docs/profiles.md): the self cost of each function,
// in instructions executed (callgrind's Ir) and in the cycles estimated from callgrind's cache
// simulation, per operation of the case, like its `instructions` metric, and the inclusive
// instructions of the calls between them (the call graph a flame graph is drawn from). Only the
// costliest functions are kept by name; the rest are added up in `other`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchledger::profile {

// The self cost of one function, or of the functions not kept by name.
struct Cost {
  double instructions = 0;
  double estimated_cycles = 0;
  bool operator==(const Cost&) const = default;
};

// A function as callgrind names it, demangled: `work(long)`, with the source file and the first
// line its cost was charged to when the program has debug information.
struct FunctionCost {
  std::string name;
  std::optional<std::string> file;
  std::optional<std::int64_t> line;
  Cost self;
  bool operator==(const FunctionCost&) const = default;
};

// The call graph among the functions of most inclusive cost (themselves and what they call),
// which a flame graph is drawn from: the functions a profile keeps by self cost miss the thin
// callers (main, dispatchers) that every path goes through.
struct CallGraph {
  struct Function {
    std::string name;
    double inclusive = 0;  // instructions per operation, recursion counted once
    bool operator==(const Function&) const = default;
  };
  // Calls from one function to another (or to any function not kept here): their inclusive
  // instructions, what callgrind charges to the calls from that caller to that callee. A call of
  // a function to itself (a recursion, whose inclusive cost callgrind counts once a level) is not
  // kept.
  struct Call {
    std::size_t caller = 0;             // index in functions
    std::optional<std::size_t> callee;  // the same; nothing: a function not kept here
    double instructions = 0;            // per operation
    bool operator==(const Call&) const = default;
  };
  std::vector<Function> functions;  // the costliest by inclusive instructions, in that order
  std::vector<Call> calls;          // by caller, then callee
  bool operator==(const CallGraph&) const = default;
};

struct Profile {
  Cost total;                           // every function's self cost: the case's count
  std::vector<FunctionCost> functions;  // the costliest by self instructions, in that order
  std::int64_t other_functions = 0;     // how many functions were added up in `other`
  Cost other;
  std::int64_t processes = 0;  // the callgrind output files (processes) merged
  CallGraph call_graph;        // empty in a profile made before call graphs were kept
  bool operator==(const Profile&) const = default;
};

// The counts of callgrind's cache simulation (`--cache-sim=yes`) that estimate cycles.
struct CacheEvents {
  double ir = 0;                        // instructions executed
  double dr = 0, dw = 0;                // data reads and writes
  double i1mr = 0, d1mr = 0, d1mw = 0;  // first-level cache misses
  double ilmr = 0, dlmr = 0, dlmw = 0;  // last-level cache misses
};
// Cycles estimated from them, as iai-callgrind and CodSpeed do: an L1 hit costs 1, a last-level
// hit 5, a miss to memory 35.
double estimated_cycles(const CacheEvents& events);

// The functions a profile keeps by name: about 15 KB of JSON a case.
inline constexpr std::size_t k_kept_functions = 100;
// The functions its call graph keeps, by inclusive cost.
inline constexpr std::size_t k_call_graph_functions = 100;

// Merges callgrind output files (one per process; `--cache-sim=yes`, positions by line) into one
// profile: the self cost of each function summed over the files, divided by `ops` (an operation
// count of at least 1), the `kept` costliest functions by name. A function is the same in two
// processes when its name and file are. Throws Error naming the file and line that cannot be
// read or is not callgrind's format.
Profile read_callgrind_profile(const std::vector<std::filesystem::path>& files, std::int64_t ops,
                               std::size_t kept = k_kept_functions);

// A symbol demangled when it is a mangled C++ name (`_Z…`), else as it is.
std::string demangle(std::string_view symbol);

// The artifact's bytes: compact JSON (`format` "benchledger-profile/1"), the same bytes for the
// same profile, so that their SHA-256 names them.
std::string to_artifact(const Profile& profile);
// The inverse. Throws Error naming `where` and the reason for bytes that are not such an
// artifact.
Profile profile_from_artifact(std::string_view bytes, const std::string& where);

}  // namespace benchledger::profile
