// Errors the runner reports: exception types whose message becomes main's one `error:` line;
// a UsageError (a bad command line) exits with status 2, any other with 1.
#pragma once

#include <stdexcept>
#include <string>

namespace runner {

class RunnerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UsageError : public RunnerError {
 public:
  using RunnerError::RunnerError;
};

}  // namespace runner
