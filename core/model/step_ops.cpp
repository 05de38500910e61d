#include "core/model/step_ops.hpp"

#include <algorithm>

namespace shardscope {

std::string_view to_string(StepOp op) noexcept {
    switch (op) {
        case StepOp::attention_projections: return "attention projections";
        case StepOp::attention_core: return "attention core";
        case StepOp::mlp: return "MLP";
        case StepOp::mlp_activation: return "MLP activation";
        case StepOp::router: return "router";
        case StepOp::routed_experts: return "routed experts";
        case StepOp::expert_activation: return "expert activation";
        case StepOp::shared_experts: return "shared experts";
        case StepOp::shared_activation: return "shared expert activation";
        case StepOp::token_permutation: return "token permutation";
        case StepOp::norms: return "norms";
        case StepOp::rotary: return "rotary";
        case StepOp::residual_adds: return "residual adds";
        case StepOp::layout_copies: return "layout copies";
        case StepOp::fp8_casts: return "FP8 casts";
        case StepOp::embedding: return "embedding";
        case StepOp::output_layer: return "output layer";
        case StepOp::loss: return "loss";
        case StepOp::fsdp_copies: return "FSDP2 copy-out";
        case StepOp::optimizer: return "optimizer step";
        case StepOp::count_: break;
    }
    return "?";
}

std::string_view to_string(StepOpKind kind) noexcept {
    switch (kind) {
        case StepOpKind::gemm: return "gemm";
        case StepOpKind::attention: return "attention";
        case StepOpKind::elementwise: return "element-wise";
        case StepOpKind::optimizer: return "optimizer";
    }
    return "?";
}

std::string_view to_string(OpBound bound) noexcept {
    switch (bound) {
        case OpBound::flops: return "flops";
        case OpBound::hbm: return "hbm";
        case OpBound::launch: return "launch";
        case OpBound::host: return "host";
    }
    return "?";
}

StepOpKind kind_of(StepOp op) noexcept {
    switch (op) {
        case StepOp::attention_projections:
        case StepOp::mlp:
        case StepOp::router:
        case StepOp::routed_experts:
        case StepOp::shared_experts:
        case StepOp::output_layer: return StepOpKind::gemm;
        case StepOp::attention_core: return StepOpKind::attention;
        case StepOp::optimizer: return StepOpKind::optimizer;
        default: return StepOpKind::elementwise;
    }
}

bool is_moe_part(StepOp op) noexcept {
    switch (op) {
        case StepOp::router:
        case StepOp::routed_experts:
        case StepOp::expert_activation:
        case StepOp::shared_experts:
        case StepOp::shared_activation:
        case StepOp::token_permutation: return true;
        default: return false;
    }
}

OpBound OpFigures::bound() const noexcept {
    if (host_bound_s > flops_bound_s && host_bound_s > hbm_bound_s && host_bound_s > launch_s) return OpBound::host;
    if (launch_s > flops_bound_s && launch_s > hbm_bound_s) return OpBound::launch;
    return hbm_bound_s > flops_bound_s ? OpBound::hbm : OpBound::flops;
}

void OpFigures::add(const OpFigures& o, double times) noexcept {
    forward_s += times * o.forward_s;
    backward_s += times * o.backward_s;
    rerun_s += times * o.rerun_s;
    flops += times * o.flops;
    rerun_flops += times * o.rerun_flops;
    flops_bound_s += times * o.flops_bound_s;
    hbm_bound_s += times * o.hbm_bound_s;
    host_bound_s += times * o.host_bound_s;
    launch_s += times * o.launch_s;
}

void add_ops(OpTimes& into, const OpTimes& ops, double times) noexcept {
    for (std::size_t i = 0; i < kStepOpCount; ++i) into[i].add(ops[i], times);
}

std::vector<OpEntry> longest_first(const OpTimes& ops) {
    std::vector<OpEntry> out;
    for (std::size_t i = 0; i < kStepOpCount; ++i)
        if (ops[i].time_s() > 0) out.push_back({static_cast<StepOp>(i), ops[i]});
    std::stable_sort(out.begin(), out.end(),
                     [](const OpEntry& a, const OpEntry& b) { return a.figures.time_s() > b.figures.time_s(); });
    return out;
}

double total_time_s(const OpTimes& ops) noexcept {
    double t = 0;
    for (const OpFigures& o : ops) t += o.time_s();
    return t;
}

}  // namespace shardscope
