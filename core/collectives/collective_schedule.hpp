#pragma once
// Where each transfer of a stepped collective happens: every algorithm the animator teaches (ring,
// NCCL's trees, pairwise all-to-all, hierarchical) written as transfers in program order and placed at
// the earliest step their data allows. SteppedCollective (collective_steps.hpp) plays the result.

#include "core/collectives/collective_steps.hpp"

#include <vector>

namespace shardscope {

// Every step's transfers for `config` with the message cut into `chunks` chunks (config passed
// check_step_config): at most one transfer per (src, dst) pair in a step, each reading the state
// before the step.
[[nodiscard]] std::vector<std::vector<Transfer>> build_step_schedule(const StepConfig& config, int chunks);

// NCCL's double binary tree: the parent of `rank` in tree 0 or 1 (src/graph/trees.cc, ncclGetBtree and
// ncclGetDtree); -1 for a root.
[[nodiscard]] int nccl_dtree_parent(int tree, int rank, int ranks) noexcept;

}  // namespace shardscope
