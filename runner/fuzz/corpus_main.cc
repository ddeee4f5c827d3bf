// replay_corpus FILE...: runs the fuzz target (replay_fuzz.cc) on each file, as libFuzzer
// would run one input; prints "N inputs read without a crash". A crash is the sanitizers'
// report (ASan/UBSan builds) or the process dying.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    std::ifstream in(argv[k], std::ios::binary);
    if (!in) {
      std::cerr << "error: cannot read " << argv[k] << "\n";
      return 1;
    }
    std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << argc - 1 << " inputs read without a crash\n";
  return 0;
}
