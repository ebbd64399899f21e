// Where a case's count changed between two profiles (`benchledger explain`, docs/profiles.md):
// each function's self cost on both sides and its share of the case's change.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.hpp"

namespace benchledger::profile {

enum class Event { instructions, estimated_cycles };
std::string_view to_string(Event event);  // "instructions", "estimated_cycles"
// The inverse: nothing for any other word.
std::optional<Event> event_from(std::string_view word);

struct FunctionChange {
  std::string name;
  std::optional<std::string> file;
  std::optional<std::int64_t> line;
  // The function's self cost on each side; nothing where that side's profile does not name it
  // (a function added or removed, renamed by other inlining, or one of the side's `other`).
  std::optional<double> base, head;
  double change = 0;            // head - base, a side without the function counting 0
  std::optional<double> share;  // change / the case's change; nothing when the case did not change
};

struct ProfileDiff {
  Event event = Event::instructions;
  double base_total = 0, head_total = 0;
  double change = 0;  // head_total - base_total
  // Every function named on either side, the largest change (either sign) first; a function
  // that one side does not name but adds up in its other functions ranks by the part of its change
  // beyond that side's smallest kept function, the least it can have changed.
  std::vector<FunctionChange> functions;
  // Whether a side added up functions in `other`: a function it does not name may be among them.
  bool base_capped = false, head_capped = false;
  FunctionChange other;  // the `other` of both sides, as a function named "(other functions)"
};

// Pairs the functions of two profiles by name (and by file too where a name is in several files
// of one side: static functions; a name alone otherwise, so that two builds in different
// directories pair).
ProfileDiff diff_profiles(const Profile& base, const Profile& head, Event event);

}  // namespace benchledger::profile
