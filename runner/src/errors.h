// Errors the runner reports: one exception type whose message becomes main's one `error:` line.
#pragma once

#include <stdexcept>
#include <string>

namespace runner {

class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace runner
