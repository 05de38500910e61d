#include "core/scenario/dim.hpp"

namespace shardscope {

std::string_view to_string(Dim d) noexcept {
    switch (d) {
        case Dim::tp: return "tp";
        case Dim::cp: return "cp";
        case Dim::ep: return "ep";
        case Dim::dp_shard: return "dp_shard";
        case Dim::dp_replicate: return "dp_replicate";
        case Dim::pp: return "pp";
    }
    return "tp";
}

std::optional<Dim> dim_from_string(std::string_view s) noexcept {
    for (Dim d : kAllDims)
        if (to_string(d) == s) return d;
    return std::nullopt;
}

std::optional<Dim> mesh_dim_from_string(std::string_view s) noexcept {
    const auto d = dim_from_string(s);
    if (d && is_mesh_dim(*d)) return d;
    return std::nullopt;
}

const DimFacts& dim_facts(Dim d) noexcept {
    // Indexed like kAllDims. Every group's collective runs on NVLink when all its members share a node
    // and on the network otherwise (core/mesh/mesh.hpp); link_rule says what puts a dim's groups there.
    static const DimFacts kFacts[] = {
        {"tp", "TP", "the matmuls inside each layer (heads, MLP columns and rows)",
         "all-reduce of activations, twice per layer each way",
         "frequent, latency-bound messages that need the fastest links", "one layer is too big and you have NVLink",
         "stays on NVLink while tp divides a node's GPUs and comes first in `order`"},
        {"cp", "SP / CP", "the sequence (SP: norm/dropout regions; CP: attention too)",
         "K and V blocks around a ring, or all-gather", "extra traffic to move keys and values between GPUs",
         "the context is very long",
         "stays on NVLink while its group fits in a node after the dims listed before it in `order`"},
        {"ep", "EP", "the experts of each MoE layer", "all-to-all: tokens go to their expert and come back",
         "all-to-all traffic and uneven load across experts", "the model is a mixture of experts",
         "borrows cp x dp_shard ranks; a group that spans nodes shares the node's NICs"},
        {"fsdp", "FSDP / ZeRO", "the batch, and the weights, gradients and optimizer state",
         "all-gather of weights + reduce-scatter of gradients",
         "more traffic than DP: each layer is gathered right before it runs",
         "the model state barely fits under plain DP",
         "a group that spans nodes rides one NIC per member in the node (rails)"},
        {"dp", "DP / DDP", "the batch: each GPU trains on its own rows", "all-reduce of the gradients, once per step",
         "every GPU keeps the full weights, gradients and optimizer state", "the model fits and you want throughput",
         "usually spans nodes; rides one NIC per member in the node (rails)"},
        {"pp", "PP", "the layer stack into stages", "point-to-point activations between neighbouring stages",
         "the bubble: stages wait while the pipeline fills and drains", "the model spans many nodes",
         "usually outermost in `order`: neighbouring stages on different nodes, small messages"},
    };
    return kFacts[dim_index(d)];
}

const DimFacts& dim_facts(Dim d, int zero_stage) noexcept {
    // FSDP / ZeRO by its stage: what a stage shards and when it sends, as the cost model prices it.
    static const DimFacts kZero1{"fsdp", "FSDP / ZeRO", "the batch, and the optimizer state (ZeRO-1)",
                                 "reduce-scatter of the gradients and all-gather of the updated weights, once per step",
                                 "about DP's traffic (a reduce-scatter and an all-gather move what one all-reduce does)",
                                 "the optimizer state is what does not fit", dim_facts(Dim::dp_shard).link_rule};
    static const DimFacts kZero2{"fsdp", "FSDP / ZeRO", "the batch, and the gradients and optimizer state (ZeRO-2)",
                                 "reduce-scatter of the gradients after every micro-batch's backward; all-gather of "
                                 "the updated weights once per step",
                                 "a gradient reduce-scatter per micro-batch, not one per step",
                                 "gradients and optimizer state do not fit, the weights do",
                                 dim_facts(Dim::dp_shard).link_rule};
    if (d == Dim::dp_shard && zero_stage == 1) return kZero1;
    if (d == Dim::dp_shard && zero_stage == 2) return kZero2;
    return dim_facts(d);
}

}  // namespace shardscope
