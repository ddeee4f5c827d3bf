// Replaying a decision trace (docs/decision-traces.md) through the C++ policy its header
// names: every decision compared with the recorded one. Shared by the `replay` command and
// the trace reader's fuzz target (runner/fuzz/).
#pragma once

#include <istream>
#include <ostream>
#include <string>

namespace policies {

// Replays the trace read from `in` (`path` names it in messages), printing to `out`
// "PATH: N decisions replay clean" (with " before a cut last line (line L: why)" when the
// last line has no newline and does not parse: a killed run's) or "PATH: differs at call i
// (schedule at now_ns=T): expected {...}, got {...}". Returns 0 clean, 1 differs; throws
// std::runtime_error naming the line (and the offset, for bad JSON) when it cannot be read.
int replay(std::istream& in, const std::string& path, std::ostream& out);

}  // namespace policies
