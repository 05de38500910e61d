#include "core/model/zero3.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope {
namespace {

// DeepSpeed's stage3_param_persistence_threshold, stage3_max_reuse_distance and reduce_bucket_size
// defaults (runtime/zero/constants.py, the same in 0.3 and today): elements.
constexpr double kPersistenceThreshold = 1e5;
constexpr double kMaxReuseDistance = 1e9;
constexpr double kReduceBucket = 5e8;

double as_double(int64_t v) noexcept { return static_cast<double>(v); }

void add_vector(BlockTensors& t, double elements) {
    ++t.vectors;
    if (elements < kPersistenceThreshold) ++t.persistent_vectors;
}

void add_attention(BlockTensors& t, const ModelSpec& m) {
    const double h = as_double(m.hidden);
    if (m.is_mla()) {
        const double heads = as_double(m.heads), qk = as_double(m.qk_head_dim()), v = as_double(m.v_head_dim);
        const double q_rank = as_double(m.q_lora_rank), kv_rank = as_double(m.kv_lora_rank);
        if (q_rank > 0) {
            t.matrices.push_back(h * q_rank);
            add_vector(t, q_rank);
            t.matrices.push_back(q_rank * heads * qk);
        } else {
            t.matrices.push_back(h * heads * qk);
        }
        t.matrices.push_back(h * (kv_rank + as_double(m.qk_rope_head_dim)));
        add_vector(t, kv_rank);
        t.matrices.push_back(kv_rank * heads * (as_double(m.qk_nope_head_dim) + v));
        t.matrices.push_back(heads * v * h);
        return;
    }
    const double head_dim = as_double(m.attention_head_dim());
    const double q = as_double(m.heads) * head_dim, kv = as_double(m.kv_heads) * head_dim;
    if (m.ffn != Ffn::swiglu) {
        t.matrices.push_back(h * (q + 2.0 * kv));  // Megatron's fused query_key_value
        if (m.ffn == Ffn::gelu) add_vector(t, q + 2.0 * kv);
        t.matrices.push_back(q * h);
        if (m.ffn == Ffn::gelu) add_vector(t, h);
        return;
    }
    for (double width : {q, kv, kv, q}) t.matrices.push_back(h * width);
}

void add_ffn(BlockTensors& t, const ModelSpec& m, double width) {
    const double h = as_double(m.hidden);
    const int matrices = m.ffn == Ffn::swiglu ? 3 : 2;
    for (int i = 0; i < matrices; ++i) t.matrices.push_back(h * width);
    if (m.ffn == Ffn::gelu) {
        add_vector(t, width);
        add_vector(t, h);
    }
}

// A block's norms: LayerNorm's gain and bias for GPT and Nemotron, RMSNorm's gain otherwise; two a block.
void add_norms(BlockTensors& t, const ModelSpec& m) {
    const int per_norm = m.ffn == Ffn::swiglu ? 1 : 2;
    for (int i = 0; i < 2 * per_norm; ++i) add_vector(t, as_double(m.hidden));
}

// The share (by count and by elements) of a block's matrices a full recompute's backward gathers
// again: a matrix is released after the recomputed forward unless its next use (the backward of
// the block, in reverse order) comes within the reuse distance: the elements of every matrix after
// it, once recomputed and once in the backward.
struct Regather {
    double calls = 0, elements = 0;
};
Regather regathered_after_recompute(const BlockTensors& t) {
    const std::vector<double>& order = t.matrices;
    Regather r;
    double after = 0, total = 0;
    for (double s : order) total += s;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (2.0 * after >= kMaxReuseDistance) {
            r.calls += 1;
            r.elements += *it;
        }
        after += *it;
    }
    if (total <= 0 || order.empty()) return {};
    return Regather{r.calls / as_double(static_cast<int64_t>(order.size())), r.elements / total};
}

}  // namespace

BlockTensors block_tensors(const ModelSpec& m, bool moe_block) {
    BlockTensors t;
    if (!m.has_architecture()) return t;
    add_norms(t, m);
    add_attention(t, m);
    if (!moe_block) {
        add_ffn(t, m, as_double(m.ffn_hidden));
        return t;
    }
    t.matrices.push_back(as_double(m.hidden) * as_double(m.experts));  // the router
    for (int64_t i = 0; i < m.shared_experts; ++i) add_ffn(t, m, as_double(m.expert_ffn_hidden));
    t.routed_expert_matrices = as_double(m.experts) * (m.ffn == Ffn::swiglu ? 3.0 : 2.0);
    return t;
}

Zero3Calls zero3_calls(ZeroImpl impl, const ModelSpec& m, const ParamCounts& c, const StageParams& sp,
                       bool full_recompute) {
    Zero3Calls z;
    const BlockKinds kinds = block_kinds(c, sp.layers);
    const double ends = (sp.embedding > 0 ? 1.0 : 0.0) + (sp.output > 0 ? 1.0 : 0.0);
    const bool fsdp_like = impl == ZeroImpl::fsdp2 || impl == ZeroImpl::fsdp1 || impl == ZeroImpl::megatron_fsdp;
    if (fsdp_like || !c.from_architecture) {
        z.gathers_per_pass = std::max(1.0, as_double(sp.layers.count) + ends);
        z.expert_gathers_per_pass = std::max(1.0, as_double(kinds.moe));
        z.reductions = z.gathers_per_pass;
        z.expert_reductions = z.expert_gathers_per_pass;
        return z;
    }
    const BlockTensors dense = block_tensors(m, false), moe = block_tensors(m, true);
    const auto gathered = [](const BlockTensors& t) {
        return as_double(static_cast<int64_t>(t.matrices.size())) + as_double(t.vectors - t.persistent_vectors);
    };
    const auto all = [](const BlockTensors& t) {
        return as_double(static_cast<int64_t>(t.matrices.size())) + as_double(t.vectors);
    };
    const double nd = as_double(kinds.dense), nm = as_double(kinds.moe);
    z.gathers_per_pass = std::max(1.0, nd * gathered(dense) + nm * gathered(moe) + ends);
    z.expert_gathers_per_pass = nm > 0 ? nm * moe.routed_expert_matrices : 1.0;
    if (full_recompute) {
        const Regather rd = regathered_after_recompute(dense), rm = regathered_after_recompute(moe);
        const double blocks = std::max(1.0, nd + nm);
        z.recompute_passes = 1;
        z.regather_calls = (nd * rd.calls + nm * rm.calls) / blocks;
        z.regather_bytes = (nd * rd.elements + nm * rm.elements) / blocks;
    }
    if (impl == ZeroImpl::deepspeed_0_3) {
        // Every parameter reduce-scattered on its own, the persistent vectors too.
        const double final_norm = sp.output > 0 ? (m.ffn == Ffn::swiglu ? 1.0 : 2.0) : 0.0;
        z.reductions = nd * all(dense) + nm * all(moe) + ends + final_norm;
        z.expert_reductions = nm > 0 ? nm * moe.routed_expert_matrices : 1.0;
        z.per_rank_copies = true;
        z.gathers_wait = true;
        z.reductions_wait = true;
        z.python_views = true;
        return z;
    }
    z.reductions = std::max(1.0, std::ceil((sp.embedding + sp.output + sp.blocks_non_expert) / kReduceBucket));
    z.expert_reductions = std::max(1.0, std::ceil(sp.routed_experts / kReduceBucket));
    return z;
}

double list_api_copies_s(double calls, double bytes, int64_t ranks, double hbm_bytes_per_s, double kernel_floor_s,
                         bool zero_fill) noexcept {
    if (calls <= 0 || bytes <= 0 || ranks <= 1 || hbm_bytes_per_s <= 0) return 0;
    const double n = as_double(ranks);
    const double per_copy = 2.0 * bytes / calls / n / hbm_bytes_per_s;  // read the shard, write it
    double s = calls * n * std::max(per_copy, kernel_floor_s);
    if (zero_fill) s += calls * std::max(bytes / calls / hbm_bytes_per_s, kernel_floor_s);
    return s;
}

double python_views_s(double calls, int64_t ranks) noexcept {
    if (calls <= 0 || ranks <= 1) return 0;
    return calls * as_double(ranks) * kEagerViewOpS;
}

}  // namespace shardscope
