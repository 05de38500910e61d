#include "core/model/op_recompute.hpp"

#include <algorithm>

namespace shardscope {
namespace {

double as_double(int64_t v) noexcept { return static_cast<double>(v); }

void add_attention(std::vector<BlockMatmul>& out, const ModelSpec& m) {
    const double h = as_double(m.hidden);
    const double q = as_double(m.heads * m.qk_head_dim());
    const double o = as_double(m.heads * m.value_head_dim());
    if (m.is_mla()) {
        const double q_rank = as_double(m.q_lora_rank), kv_rank = as_double(m.kv_lora_rank);
        if (q_rank > 0) {
            out.push_back({q_rank, h, MatmulSplit::whole, false});
            out.push_back({q, q_rank, MatmulSplit::column, false});
        } else {
            out.push_back({q, h, MatmulSplit::column, false});
        }
        out.push_back({kv_rank + as_double(m.qk_rope_head_dim), h, MatmulSplit::whole, false});
        out.push_back({as_double(m.heads * (m.qk_nope_head_dim + m.value_head_dim())), kv_rank, MatmulSplit::column, false});
    } else {
        out.push_back({q, h, MatmulSplit::column, false});
        out.push_back({as_double(m.key_width()), h, MatmulSplit::column, false});
        out.push_back({as_double(m.value_width()), h, MatmulSplit::column, false});
    }
    out.push_back({h, o, MatmulSplit::row, false});
}

void add_mlp(std::vector<BlockMatmul>& out, const ModelSpec& m, double width, bool routed, StepOp op) {
    const double h = as_double(m.hidden);
    out.push_back({width, h, MatmulSplit::column, routed, op});
    if (m.ffn == Ffn::swiglu) out.push_back({width, h, MatmulSplit::column, routed, op});
    out.push_back({h, width, MatmulSplit::row, routed, op});
}

}  // namespace

std::vector<BlockMatmul> block_matmuls_in_order(const ModelSpec& m, bool moe_block) {
    std::vector<BlockMatmul> out;
    add_attention(out, m);
    if (!(moe_block && m.is_moe())) {
        add_mlp(out, m, as_double(m.ffn_hidden), false, StepOp::mlp);
        return out;
    }
    out.push_back({as_double(m.experts), as_double(m.hidden), MatmulSplit::whole, false, StepOp::router});
    add_mlp(out, m, as_double(m.expert_ffn_hidden), true, StepOp::routed_experts);
    if (m.shared_experts > 0)
        add_mlp(out, m, as_double(m.shared_experts * m.expert_ffn_hidden), false, StepOp::shared_experts);
    return out;
}

double routed_copies(const ModelSpec& m) noexcept {
    return as_double(m.top_k) * std::max(1.0, m.capacity_factor);
}

double op_policy_saved_elements_per_token(const ModelSpec& m, bool moe_block, int64_t tp, bool sequence_parallel) {
    const double split = 1.0 / as_double(std::max<int64_t>(1, tp));
    const double token_split = sequence_parallel ? split : 1.0;
    double kept = as_double(m.hidden) * token_split + as_double(m.heads * m.value_head_dim()) * split;
    const std::vector<BlockMatmul> matmuls = block_matmuls_in_order(m, moe_block);
    for (std::size_t i = 0; i < matmuls.size(); ++i) {
        if (op_policy_recomputes(i)) continue;
        const BlockMatmul& mm = matmuls[i];
        kept += mm.out_width * (mm.split == MatmulSplit::column ? split : token_split) *
                (mm.routed ? routed_copies(m) : 1.0);
    }
    return kept;
}

double op_policy_recomputed_flops_per_token(const ModelSpec& m, bool moe_block) {
    const std::vector<BlockMatmul> matmuls = block_matmuls_in_order(m, moe_block);
    double flops = 0;
    for (std::size_t i = 0; i < matmuls.size(); ++i) {
        if (!op_policy_recomputes(i)) continue;
        const BlockMatmul& mm = matmuls[i];
        flops += 2.0 * mm.out_width * mm.in_width * (mm.routed ? routed_copies(m) : 1.0);
    }
    return flops;
}

double megatron_module_recomputed_flops_per_token(const ModelSpec& m, const RecomputeModules& mods) {
    if (!mods.mla_up_proj || !m.is_mla()) return 0.0;
    const double q_up = as_double(m.q_lora_rank) * as_double(m.heads * m.qk_head_dim());
    const double kv_up = as_double(m.kv_lora_rank) * as_double(m.heads * (m.qk_nope_head_dim + m.value_head_dim()));
    return 2.0 * (q_up + kv_up);
}

std::string recompute_text(const TrainingSpec& t) {
    std::string text(to_string(t.recompute));
    if (t.recompute == Recompute::full && (t.recompute_method != RecomputeMethod::uniform || t.recompute_num_layers != 1))
        return text + " (" + std::string(to_string(t.recompute_method)) + " " + std::to_string(t.recompute_num_layers) + ")";
    if (t.recompute != Recompute::selective || !t.fused_kernels || t.recompute_modules.is_default()) return text;
    const std::vector<std::string> names = recompute_module_names(t.recompute_modules);
    text += " (";
    for (std::size_t i = 0; i < names.size(); ++i) text += (i > 0 ? ", " : "") + names[i];
    return text + (names.empty() ? "no module)" : ")");
}

std::string recompute_display_name(Recompute r, const TrainingSpec& t) {
    switch (r) {
        case Recompute::none: return "none";
        case Recompute::selective: {
            if (!t.fused_kernels) return "selective (op-level)";
            if (t.recompute_modules.is_default()) return "selective (attention core)";
            // Short enough for a combo; the modules are listed beside it.
            const std::size_t n = recompute_module_names(t.recompute_modules).size();
            if (n == 0) return "selective (no module)";
            return "selective (" + std::to_string(n) + (n == 1 ? " module)" : " modules)");
        }
        case Recompute::full: return "full (whole block)";
    }
    return "none";
}

}  // namespace shardscope
