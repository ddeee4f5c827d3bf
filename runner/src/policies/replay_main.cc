// replay TRACE...: feeds each decision trace's calls (docs/decision-traces.md) through the
// C++ policy its header names and compares every decision with the recorded one (replay.h).
// Prints "TRACE: N decisions replay clean" (or "... before a cut last line (...)": a killed
// run's trace, replayed up to its cut) or "TRACE: differs at call i (schedule at
// now_ns=T): expected {...}, got {...}" (the first difference) and exits 1; one
// "error: TRACE: line L: ..." line (with the offset in the line for bad JSON) and status 1
// for a trace it cannot read.
#include <fstream>
#include <iostream>
#include <string>

#include "replay.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: replay TRACE...\n";
    return 2;
  }
  int status = 0;
  for (int k = 1; k < argc; ++k) {
    try {
      std::ifstream in(argv[k]);
      if (!in) throw std::runtime_error("cannot open it");
      status |= policies::replay(in, argv[k], std::cout);
    } catch (const std::exception& e) {
      std::cerr << "error: " << argv[k] << ": " << e.what() << "\n";
      return 1;
    }
  }
  return status;
}
