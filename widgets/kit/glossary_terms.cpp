#include "widgets/kit/glossary_terms.hpp"

namespace shardscope::ui {

std::string_view glossary_term(Schedule s) noexcept {
    switch (s) {
        case Schedule::gpipe: return "GPipe";
        case Schedule::one_f_one_b: return "1F1B";
        case Schedule::interleaved_1f1b: return "Interleaved 1F1B";
        case Schedule::zb_h1:
        case Schedule::zb_h2: return "Zero bubble";
        case Schedule::dualpipe: return "DualPipe";
    }
    return "Pipeline parallel";
}

std::string_view glossary_term(Collective c) noexcept {
    switch (c) {
        case Collective::all_reduce: return "All-reduce";
        case Collective::all_gather: return "All-gather";
        case Collective::reduce_scatter: return "Reduce-scatter";
        case Collective::all_to_all: return "All-to-all";
        case Collective::broadcast: return "Broadcast";
        case Collective::reduce: return "Reduce";
        case Collective::p2p: return "Point-to-point";
    }
    return "Collective";
}

std::string_view glossary_term(StepAlgorithm a) noexcept {
    switch (a) {
        case StepAlgorithm::ring: return "Ring algorithm";
        case StepAlgorithm::tree:
        case StepAlgorithm::double_binary_tree: return "Tree algorithm";
        case StepAlgorithm::pairwise: return "All-to-all";
        case StepAlgorithm::hierarchical: return "Hierarchical collective";
    }
    return "Collective";
}

std::string_view glossary_term(Dim d) noexcept {
    switch (d) {
        case Dim::tp: return "Tensor parallel";
        case Dim::cp: return "Context parallel";
        case Dim::ep: return "Expert parallel";
        case Dim::dp_shard: return "FSDP";
        case Dim::dp_replicate: return "Data parallel";
        case Dim::pp: return "Pipeline parallel";
    }
    return "Device mesh";
}

std::string_view zero_stage_term(int stage) noexcept {
    switch (stage) {
        case 1: return "ZeRO-1";
        case 2: return "ZeRO-2";
        case 3: return "ZeRO-3";
        default: return "ZeRO";
    }
}

std::vector<std::string_view> all_glossary_terms_used() {
    std::vector<std::string_view> out = {terms::kWeights,    terms::kGradients,        terms::kOptimizer,
                                         terms::kActivations, terms::kRecompute,       terms::kPrecision,
                                         terms::kSequenceParallel, terms::kBubble,     terms::kMicroBatch,
                                         terms::kStage,      terms::kPointToPoint,     terms::kMeshOrder};
    for (Dim s : kStrategyOrder) out.push_back(glossary_term(s));
    for (Schedule s : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved_1f1b, Schedule::zb_h1,
                       Schedule::zb_h2, Schedule::dualpipe})
        out.push_back(glossary_term(s));
    for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                         Collective::all_to_all, Collective::broadcast, Collective::reduce, Collective::p2p})
        out.push_back(glossary_term(c));
    for (StepAlgorithm a : {StepAlgorithm::ring, StepAlgorithm::tree, StepAlgorithm::pairwise,
                            StepAlgorithm::double_binary_tree, StepAlgorithm::hierarchical})
        out.push_back(glossary_term(a));
    for (Dim d : {Dim::tp, Dim::cp, Dim::ep, Dim::dp_shard, Dim::dp_replicate, Dim::pp})
        out.push_back(glossary_term(d));
    for (int z = 0; z <= 3; ++z) out.push_back(zero_stage_term(z));
    return out;
}

}  // namespace shardscope::ui
