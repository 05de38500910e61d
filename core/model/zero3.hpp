#pragma once
// ZeRO-3 as each implementation issues it (parallel.zero_impl): how many collectives a micro-batch
// calls for the weights it gathers and the gradients it reduces, what each call costs beyond NCCL's
// own time, and which of them the implementation can hide under compute.
//
// Sources, each the implementation's own code:
// - PyTorch FSDP1 / FSDP2 and Megatron-FSDP: one unit per transformer block (plus the embedding and
//   the output layer), one all-gather and one reduce-scatter each, the next unit prefetched.
// - DeepSpeed today (deepspeedai/DeepSpeed, runtime/zero/partitioned_param_coordinator.py): a
//   submodule's weights fetched by one coalesced all-gather before it runs, the next ones prefetched;
//   vectors below stage3_param_persistence_threshold (1e5 elements) stay whole on every rank;
//   gradients reduce-scattered in reduce_bucket_size buckets (5e8 elements); a weight is kept
//   gathered when its next use is fewer than stage3_max_reuse_distance (1e9) elements away.
// - DeepSpeed 0.3 (commit adac058ac, 14 April 2021, the release Narayanan et al. 2021 ran):
//   partition_parameters.py's _allgather_param calls torch.cuda.synchronize() and then one
//   torch.distributed.all_gather per parameter, with a list of world-size output views; PyTorch's
//   ProcessGroupNCCL then copies the gathered buffer into each view, one copy kernel per rank (and
//   flattens a reduce_scatter's list of inputs the same way); _reduce_scatter_gradient reduces
//   every parameter on its own, on a separate stream; the same thresholds as above. Both gather paths
//   (_allgather_param, and stage3.py's _synchronize_communication) call torch.cuda.synchronize(),
//   which waits for every stream of the device: the next weight's gather waits for the reduction
//   stream's reduce-scatters as well as the compute, so neither collective hides under the compute.

#include "core/model/params.hpp"
#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <vector>

namespace shardscope {

// The parameter tensors of one block as a ZeRO-3 implementation sees them.
struct BlockTensors {
    std::vector<double> matrices;        // weight matrices outside the routed experts, forward order
    double routed_expert_matrices = 0;   // the routed experts' weight matrices (EP splits them)
    int64_t vectors = 0;                 // biases and norm gains
    int64_t persistent_vectors = 0;      // of which below DeepSpeed's persistence threshold
};
// A Megatron-LM GPT block (LayerNorm with bias, fused QKV, biases on every linear) for a gelu FFN;
// a Megatron-Core Nemotron block (the same without biases) for squared-relu; a Hugging Face Llama /
// DeepSeek block (RMSNorm, separate q, k, v and gate, up, no biases) for swiglu; MLA's latent projections and their two norms; an MoE block's router, shared and routed
// experts.
[[nodiscard]] BlockTensors block_tensors(const ModelSpec& m, bool moe_block);

// What one micro-batch's ZeRO-3 costs on a stage, before overlap.
struct Zero3Calls {
    double gathers_per_pass = 0;      // all-gathers of the dense (non-expert) weights, one forward's worth
    double expert_gathers_per_pass = 0;
    // With a full recompute, the backward's recomputed forward gathers a whole pass again, and the
    // backward then gathers these shares of a pass (by calls, by bytes) a third time: what was
    // released after the recomputed forward (DeepSpeed; FSDP keeps a unit from its recompute to its
    // backward).
    double recompute_passes = 0;
    double regather_calls = 0, regather_bytes = 0;
    double reductions = 0;            // reduce-scatters of the dense gradients
    double expert_reductions = 0;
    bool per_rank_copies = false;     // PyTorch's list API: a copy kernel per rank per call
    bool gathers_wait = false;        // every all-gather behind a device synchronize: nothing hides it
    bool reductions_wait = false;     // the reduce-scatters too: the next gather's synchronize waits on them
    bool python_views = false;        // each gather first builds a view per rank in Python, the device idle
};
[[nodiscard]] Zero3Calls zero3_calls(ZeroImpl impl, const ModelSpec& m, const ParamCounts& c,
                                     const StageParams& sp, bool full_recompute);

// The world-size copies of PyTorch's list-API collectives and the zero fill of each gathered
// tensor: `calls` calls moving `bytes` in all (the gathered size), over `ranks`, each copy at least
// the kernel floor, at HBM bandwidth (read and write).
[[nodiscard]] double list_api_copies_s(double calls, double bytes, int64_t ranks, double hbm_bytes_per_s,
                                       double kernel_floor_s, bool zero_fill) noexcept;

// DeepSpeed 0.3's _allgather_param builds its list of world-size output views in a Python loop
// (flat_tensor.narrow per rank) after its torch.cuda.synchronize() and before the all-gather starts,
// so the device waits through the loop. One view op from Python: PyTorch's operator micro-benchmark
// times split, a view op of the same kind, at 2.26 us a call on small tensors, CPU and CUDA alike
// (pytorch/pytorch#32194, split_M8_N8_parts2 after the change; 3.3 us before it).
constexpr double kEagerViewOpS = 2.26e-6;

// The time the device waits while `calls` gathers over `ranks` build their views on the host.
[[nodiscard]] double python_views_s(double calls, int64_t ranks) noexcept;

}  // namespace shardscope
