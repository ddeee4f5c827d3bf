// The trace reader's fuzz target (libFuzzer's entry point): any bytes as a decision trace,
// replayed through the policy its header names. Reading may refuse the input (one
// std::exception, which the replay command prints as one error line); it must not crash,
// hang, overflow the stack or read out of bounds (built with ASan + UBSan). Built with
// libFuzzer by `make fuzz` (clang), and with corpus_main.cc into `replay_corpus`, which runs
// the kept inputs (corpus/, regressions/) in the default tests with any compiler.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "../src/policies/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  try {
    policies::replay(in, "fuzz", out);
  } catch (const std::exception&) {
    // refused: the replay command prints it as one error line
  }
  return 0;
}
