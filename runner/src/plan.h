// The plan a run executes: processors (one pinned worker each), models, and each model's
// subgraphs as slice files with their boundary tensors in the source model's numbering
// (devices/host/slicing.py). The file format is documented in runner/README.md ("Plan file").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace runner {

struct ProcessorSpec {
  std::string name;
  // cpu | gpu | npu (LiteRT accelerators) | tflite (classic TFLite C API via dlopen)
  std::string accelerator;
  int threads = 1;
  std::vector<int> cores;  // empty: not pinned
  int spin_us = 0;         // the worker spins this long for its next job before sleeping
  // backend settings: kernel=, delegate=, lib=, delegate_lib=, ... (README)
  std::map<std::string, std::string> options;
};

struct SubgraphSpec {
  std::size_t model = 0;      // index into Plan::models
  std::size_t index = 0;      // position in its model's order
  std::size_t processor = 0;  // index into Plan::processors
  std::string slice;          // "<hash>/<file>", relative to the slices folder
  std::vector<int> inputs;    // source tensor indices, in the slice's input order
  std::vector<int> outputs;   // source tensor indices, in the slice's output order
};

struct ModelSpec {
  std::string name;
  std::vector<int> inputs;             // the source model's input tensors
  std::vector<int> outputs;            // the source model's output tensors
  std::vector<std::size_t> subgraphs;  // indices into Plan::subgraphs, in order
};

struct Plan {
  std::vector<ProcessorSpec> processors;
  std::vector<ModelSpec> models;
  std::vector<SubgraphSpec> subgraphs;

  std::size_t model_index(const std::string& name) const;
};

// Reads and checks a plan file; throws RunnerError naming the line at fault.
Plan read_plan(const std::string& path);
// The same from text (`where` names it in messages).
Plan parse_plan(const std::string& text, const std::string& where);

}  // namespace runner
