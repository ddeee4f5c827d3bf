// The plan a run executes: processors (one pinned worker each), models, and each model's
// subgraphs as slice files with their boundary tensors in the source model's numbering
// (devices/host/slicing.py). The file format is documented in runner/README.md ("Plan file").
//
// A model's subgraphs are either a CHAIN (no `units=`: run in index order, subgraph k is unit
// k) or ALTERNATIVES (every subgraph gives `units=<first>-<last>`: a request runs whichever
// subgraph the policy picks among those starting at its next unit). Both are held alike: each
// subgraph covers the units first_unit..last_unit, and a request is finished when a subgraph
// ending at the model's last unit completes.
#pragma once

#include <cstddef>
#include <cstdint>
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
  std::size_t model = 0;  // index into Plan::models
  std::size_t index = 0;  // chain: position in its model's order; alternatives: as given
  int first_unit = 0;     // the units it covers (chain: both = index)
  int last_unit = 0;
  std::size_t processor = 0;  // index into Plan::processors
  std::string slice;          // "<hash>/<file>", relative to the slices folder
  std::vector<int> inputs;    // source tensor indices, in the slice's input order
  std::vector<int> outputs;   // source tensor indices, in the slice's output order
};

struct ModelSpec {
  std::string name;
  std::vector<int> inputs;             // the source model's input tensors
  std::vector<int> outputs;            // the source model's output tensors
  std::vector<std::size_t> subgraphs;  // indices into Plan::subgraphs, in file order
  int64_t slo_ns = 0;                  // every request's SLO (0: none)
  bool alternatives = false;           // its subgraphs give units= (see above)
  int num_units = 0;
};

struct Plan {
  std::vector<ProcessorSpec> processors;
  std::vector<ModelSpec> models;
  std::vector<SubgraphSpec> subgraphs;

  std::size_t model_index(const std::string& name) const;
  // the model's subgraph with this index; npos when none
  std::size_t subgraph_of(std::size_t model, std::size_t index) const;
  // the model's first subgraph (file order) starting at `unit`; npos when none
  std::size_t first_starting(std::size_t model, int unit) const;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

// Reads and checks a plan file; throws RunnerError naming the line at fault.
Plan read_plan(const std::string& path);
// The same from text (`where` names it in messages).
Plan parse_plan(const std::string& text, const std::string& where);

}  // namespace runner
