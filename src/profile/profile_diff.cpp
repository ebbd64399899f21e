// Pairing two profiles' functions and ranking their changes (profile_diff.hpp).
#include "profile/profile_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace benchledger::profile {

namespace {

double value_of(const Cost& cost, Event event) {
  return event == Event::instructions ? cost.instructions : cost.estimated_cycles;
}

// The names that occur with more than one file in a profile.
std::set<std::string> ambiguous_names(const Profile& profile) {
  std::map<std::string, int> seen;
  for (const FunctionCost& f : profile.functions) ++seen[f.name];
  std::set<std::string> out;
  for (const auto& [name, count] : seen)
    if (count > 1) out.insert(name);
  return out;
}

}  // namespace

std::string_view to_string(Event event) {
  return event == Event::instructions ? "instructions" : "estimated_cycles";
}

std::optional<Event> event_from(std::string_view word) {
  if (word == "instructions") return Event::instructions;
  if (word == "estimated_cycles") return Event::estimated_cycles;
  return std::nullopt;
}

ProfileDiff diff_profiles(const Profile& base, const Profile& head, Event event) {
  ProfileDiff diff;
  diff.event = event;
  diff.base_total = value_of(base.total, event);
  diff.head_total = value_of(head.total, event);
  diff.change = diff.head_total - diff.base_total;
  diff.base_capped = base.other_functions > 0;
  diff.head_capped = head.other_functions > 0;

  std::set<std::string> ambiguous = ambiguous_names(base);
  ambiguous.merge(ambiguous_names(head));
  const auto key_of = [&](const FunctionCost& f) {
    return ambiguous.count(f.name) != 0 ? f.name + '\0' + f.file.value_or("") : f.name;
  };
  std::map<std::string, FunctionChange> paired;
  const auto add = [&](const FunctionCost& f, bool is_base) {
    FunctionChange& change = paired[key_of(f)];
    if (change.name.empty()) change.name = f.name;
    // The head's location where both have one: it is the code now.
    if (f.file && (!is_base || !change.file)) change.file = f.file, change.line = f.line;
    (is_base ? change.base : change.head) = value_of(f.self, event);
  };
  for (const FunctionCost& f : base.functions) add(f, true);
  for (const FunctionCost& f : head.functions) add(f, false);

  const auto finish = [&](FunctionChange& change) {
    change.change = change.head.value_or(0) - change.base.value_or(0);
    if (diff.change != 0) change.share = change.change / diff.change;
  };
  for (auto& [key, change] : paired) {
    finish(change);
    diff.functions.push_back(std::move(change));
  }
  // A function a capped side does not name costs there between 0 and that side's smallest kept
  // function: only the part of its change beyond that is certain, and that part ranks it, so that
  // a function that merely fell below one side's cut does not rank above a real change.
  const auto smallest_kept = [&](const Profile& side) {
    double smallest = 0;
    for (const FunctionCost& f : side.functions) {
      const double value = value_of(f.self, event);
      smallest = smallest == 0 ? value : std::min(smallest, value);
    }
    return side.other_functions > 0 ? smallest : 0.0;
  };
  const double base_bound = smallest_kept(base), head_bound = smallest_kept(head);
  const auto certain = [&](const FunctionChange& f) {
    if (!f.base) return std::max(0.0, std::abs(f.change) - base_bound);
    if (!f.head) return std::max(0.0, std::abs(f.change) - head_bound);
    return std::abs(f.change);
  };
  std::sort(diff.functions.begin(), diff.functions.end(),
            [&](const FunctionChange& a, const FunctionChange& b) {
              const double ca = certain(a), cb = certain(b);
              if (ca != cb) return ca > cb;
              if (std::abs(a.change) != std::abs(b.change))
                return std::abs(a.change) > std::abs(b.change);
              return std::tie(a.name, a.file) < std::tie(b.name, b.file);
            });
  diff.other.name = "(other functions)";
  diff.other.base = value_of(base.other, event);
  diff.other.head = value_of(head.other, event);
  finish(diff.other);
  return diff;
}

}  // namespace benchledger::profile
