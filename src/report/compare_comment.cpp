// The pull-request comment's size limit (GitHub refuses a body over 65,536 characters).
#include <fmt/format.h>

#include "report/compare_render.hpp"

namespace benchledger::report {

std::string fit_comment(const std::string& markdown, std::size_t limit,
                        const std::string& where_whole) {
  if (markdown.size() <= limit) return markdown;
  const std::string note = fmt::format(
      "\n\n**Comparison cut at {} characters** to fit a pull-request comment: the whole of it is "
      "{}.\n",
      limit, where_whole);
  if (note.size() >= limit) return note.substr(0, limit);
  // Cut at the end of a line, so that no table row or number is cut in half.
  const std::size_t room = limit - note.size();
  const std::size_t cut = markdown.rfind('\n', room);
  return markdown.substr(0, cut == std::string::npos ? 0 : cut) + note;
}

}  // namespace benchledger::report
