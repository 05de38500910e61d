#include "core/strategy/ownership.hpp"

#include "core/model/memory.hpp"
#include "core/model/params.hpp"

#include <algorithm>
#include <functional>

namespace shardscope {

std::string_view to_string(PieceKind k) noexcept {
    switch (k) {
        case PieceKind::batch: return "batch";
        case PieceKind::embedding: return "embedding";
        case PieceKind::attention: return "attention";
        case PieceKind::mlp_in: return "mlp_in";
        case PieceKind::mlp_out: return "mlp_out";
        case PieceKind::experts: return "experts";
        case PieceKind::lm_head: return "lm_head";
    }
    return "batch";
}

std::string_view to_string(PieceState s) noexcept {
    switch (s) {
        case PieceState::data: return "data";
        case PieceState::weights: return "weights";
        case PieceState::grads: return "grads";
        case PieceState::optimizer: return "optimizer";
    }
    return "data";
}

std::vector<size_t> Ownership::held_by(int64_t rank) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < pieces.size(); ++i)
        if (std::binary_search(pieces[i].owners.begin(), pieces[i].owners.end(), rank)) out.push_back(i);
    return out;
}

double Ownership::state_bytes_held_by(int64_t rank) const {
    const Held h = held_bytes(rank);
    return h.weights + h.grads + h.optimizer;
}

Ownership::Held Ownership::held_bytes(int64_t rank) const {
    Held h;
    bool any_batch = false;
    for (size_t i : held_by(rank)) {
        const Piece& p = pieces[i];
        if (p.kind == PieceKind::batch) {
            h.seq_first = any_batch ? std::min(h.seq_first, p.first) : p.first;
            h.seq_last = any_batch ? std::max(h.seq_last, p.last) : p.last;
            h.token_first = any_batch ? std::min(h.token_first, p.token_first) : p.token_first;
            h.token_last = any_batch ? std::max(h.token_last, p.token_last) : p.token_last;
            any_batch = true;
        }
        switch (p.state) {
            case PieceState::data: h.data += p.bytes; break;
            case PieceState::weights: h.weights += p.bytes; break;
            case PieceState::grads: h.grads += p.bytes; break;
            case PieceState::optimizer: h.optimizer += p.bytes; break;
        }
    }
    return h;
}

namespace {

constexpr int64_t kCellsWanted = 8;  // the toy draws about this many cells per axis

double as_double(int64_t v) noexcept { return static_cast<double>(v); }

// The smallest multiple of `factor` that reaches `wanted`, but never more cells than real items.
// How many ways the tokens of a CP chunk are split at the block boundaries: tp under SP, else 1.
int64_t sequence_split(const ParallelSpec& p) noexcept { return p.sequence_parallel ? p.tp : 1; }

int64_t cells_for(int64_t factor, int64_t wanted, int64_t items) {
    const int64_t per = std::max<int64_t>(1, (wanted + factor - 1) / factor);
    return factor * std::max<int64_t>(1, std::min(per, items / std::max<int64_t>(1, factor)));
}

// A cell cut into many ZeRO slices is drawn with fewer cells, so that no band of a group holds more
// than about kSliceBudget pieces (a 64-way sharded model stays a picture, not confetti).
constexpr int64_t kSliceBudget = 32;

int64_t budgeted_cells(int64_t factor, int64_t wanted, int64_t items, int64_t slices) {
    int64_t cells = cells_for(factor, wanted, items);
    while (cells > factor && cells * slices > kSliceBudget) cells -= factor;
    return cells;
}

int64_t coord(const ExplorerGpu& g, Dim d) { return g.coords[mesh_axis(d)]; }

// Which data-parallel replica a GPU computes for: dp_replicate outer, dp_shard inner.
int64_t dp_index(const ExplorerGpu& g, const ParallelSpec& p) {
    return coord(g, Dim::dp_replicate) * p.dp_shard + coord(g, Dim::dp_shard);
}

// The explorer's GPUs: ranks 0..gpus-1 of one copy of the layout, numbered as mesh.hpp numbers them.
std::vector<ExplorerGpu> explorer_gpus(const ParallelSpec& p, int64_t gpus) {
    ClusterSpec one_copy;
    one_copy.nodes = 1;
    one_copy.gpus_per_node = gpus;
    const DeviceMesh mesh = DeviceMesh::build(one_copy, p);
    // Position inside the combined cp x dp_shard group: the one of the two with the smaller stride is
    // the inner digit (ascending rank), as in DeviceMesh's EP numbering.
    const bool cp_inner = mesh.stride(Dim::cp) < mesh.stride(Dim::dp_shard);
    std::vector<ExplorerGpu> out;
    out.reserve(static_cast<size_t>(gpus));
    for (int64_t r = 0; r < gpus; ++r) {
        ExplorerGpu g;
        g.rank = r;
        g.coords = mesh.coords_of(r);
        const int64_t c = coord(g, Dim::cp);
        const int64_t d = coord(g, Dim::dp_shard);
        g.shard_index = cp_inner ? c + p.cp * d : d + p.dp_shard * c;
        g.ep_position = g.shard_index % p.ep;
        out.push_back(g);
    }
    return out;
}

// Rows of the layer stack: each stage gets the same number of rows (at least one), each row a run of
// the stage's layers, so that no row straddles two stages.
std::vector<LayerRow> layer_rows(const ParamCounts& counts, int64_t pp) {
    std::vector<LayerRow> rows;
    const int64_t per_stage = std::max<int64_t>(1, kCellsWanted / pp);
    for (int64_t st = 0; st < pp; ++st) {
        const StageLayers sl = stage_layers(counts.layers, pp, st);
        const int64_t n = std::min(per_stage, sl.count);
        for (int64_t i = 0; i < n; ++i) {
            LayerRow row;
            row.stage = st;
            row.first_layer = sl.first + sl.count * i / n;
            row.layer_count = sl.first + sl.count * (i + 1) / n - row.first_layer;
            row.moe = counts.is_moe_layer(row.first_layer);
            rows.push_back(row);
        }
    }
    return rows;
}

// Does ZeRO shard this state at stage `zero`?
bool zero_shards(PieceState state, int zero) {
    return (state == PieceState::optimizer && zero >= 1) || (state == PieceState::grads && zero >= 2) ||
           (state == PieceState::weights && zero >= 3);
}

double bytes_per_param(PieceState state, const StateBytesPerParam& per) {
    switch (state) {
        case PieceState::weights: return per.weights;
        case PieceState::grads: return per.grads;
        case PieceState::optimizer: return per.optimizer;
        case PieceState::data: return 0;
    }
    return 0;
}

std::string zero_name(int zero) { return zero >= 3 ? "FSDP (ZeRO-3)" : "ZeRO-" + std::to_string(zero); }

// The communication that touches one state of a weight matrix, in words.
std::string weight_collective(PieceKind kind, PieceState state, const ParallelSpec& p) {
    const bool dp_copies = p.dp_shard * p.cp * p.dp_replicate > 1;
    std::vector<std::string> parts;
    if (state == PieceState::weights) {
        if (kind == PieceKind::experts && p.ep > 1)
            parts.push_back("EP all-to-all: tokens sent to these experts and back, every MoE block, each micro-batch");
        if (p.tp > 1 && kind != PieceKind::experts) {
            if (kind == PieceKind::embedding) parts.push_back("TP all-reduce of the looked-up embeddings, each micro-batch");
            else if (kind == PieceKind::lm_head) parts.push_back("TP: logits stay split, the loss reduces across tp");
            else if (p.sequence_parallel)
                parts.push_back("TP+SP all-gather before / reduce-scatter after, every block, each micro-batch");
            else parts.push_back("TP all-reduce of its output, every block, forward and backward");
        }
        if (p.zero >= 3 && p.dp_shard * p.cp > 1)
            parts.push_back("FSDP all-gather just before use, each micro-batch (forward and backward)");
        else if (p.zero >= 1 && p.dp_shard * p.cp > 1)
            parts.push_back(zero_name(p.zero) + " all-gather of the updated weights, once per step");
    } else if (state == PieceState::grads) {
        if (p.zero >= 1 && p.dp_shard * p.cp > 1)
            parts.push_back(p.zero >= 2 ? "reduce-scatter over dp_shard x cp, each micro-batch"
                                        : "reduce-scatter over dp_shard x cp, once per step");
        else if (dp_copies)
            parts.push_back("all-reduce over the data-parallel copies, once per step");
        if (p.zero >= 1 && p.dp_replicate > 1)
            parts.push_back("all-reduce of the shard across dp_replicate (HSDP), once per step");
    } else if (state == PieceState::optimizer) {
        parts.push_back("none: each GPU updates the weights it owns the state of");
    }
    if (parts.empty()) return "none: a single copy, never sent";
    std::string out = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) out += "; " + parts[i];
    return out;
}

std::string batch_collective(const ParallelSpec& p) {
    std::vector<std::string> parts;
    if (p.dp_shard * p.dp_replicate > 1) parts.push_back("DP: each replica reads its own rows, nothing sent");
    if (p.cp > 1) parts.push_back("CP: K and V blocks passed around the cp ring in every attention");
    if (p.pp > 1) parts.push_back("PP: activations sent stage to stage point-to-point, each micro-batch");
    if (p.tp > 1 && p.sequence_parallel) parts.push_back("SP: norm and dropout activations cut along the sequence over tp");
    if (p.tp > 1) parts.push_back("TP: every tp rank reads the same tokens");
    if (parts.empty()) return "none: one GPU reads the whole batch";
    std::string out = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) out += "; " + parts[i];
    return out;
}

class PieceBuilder {
public:
    PieceBuilder(Ownership& o, const Scenario& s)
        : o_(o),
          p_(o.parallel),
          per_(state_bytes_per_param(s.training)),
          end_per_(end_layer_state_bytes(s.training)),
          s_(s) {}

    void batch() {
        const int64_t dp = p_.dp_shard * p_.dp_replicate;
        const int64_t rows = o_.shape.batch_rows, chunks = o_.shape.seq_chunks;
        const int64_t seqs = s_.training.global_batch, tokens = std::max<int64_t>(1, s_.model.seq_len);
        const double act = s_.training.precision == Precision::fp32 ? 4.0 : 2.0;
        // SP keeps the hidden state between the TP regions (residual stream, norms, dropouts) cut along
        // the sequence over the tp ranks: each holds a contiguous 1/tp of its CP chunk's tokens there.
        const int64_t sp = sequence_split(p_);
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < chunks; ++c) {
                Piece pc;
                pc.kind = PieceKind::batch;
                pc.row = r;
                pc.cell = c;
                pc.cells = chunks;
                pc.first = seqs * r / rows;
                pc.last = seqs * (r + 1) / rows;
                pc.token_first = tokens * c / chunks;
                pc.token_last = tokens * (c + 1) / chunks;
                // The hidden state of these tokens at a block boundary: what PP sends and DP never does.
                pc.bytes = as_double(pc.last - pc.first) * as_double(pc.token_last - pc.token_first) *
                           as_double(s_.model.hidden) * act;
                const int64_t per_cp = chunks / p_.cp;
                const int64_t want_dp = r / (rows / dp), want_cp = c / per_cp, want_sp = c % per_cp / (per_cp / sp);
                pc.owners = owners([&](const ExplorerGpu& g) {
                    return dp_index(g, p_) == want_dp && coord(g, Dim::cp) == want_cp &&
                           (sp == 1 || coord(g, Dim::tp) == want_sp);
                });
                pc.collective = batch_collective(p_);
                add(std::move(pc));
            }
        }
    }

    // A tp-split matrix (attention, MLP, embedding, LM head) of `params` parameters over `cells` cells
    // standing for `items` real heads / columns / vocabulary rows, held by pipeline stage `stage`.
    void split_matrix(PieceKind kind, int64_t row, int64_t stage, double params, int64_t cells, int64_t items,
                      int64_t first_layer, int64_t layer_count) {
        const int64_t zero_ranks = p_.dp_shard * p_.cp;
        for (PieceState state : {PieceState::weights, PieceState::grads, PieceState::optimizer}) {
            const int64_t slices = zero_shards(state, p_.zero) ? zero_ranks : 1;
            for (int64_t c = 0; c < cells; ++c) {
                const int64_t want_tp = c / (cells / p_.tp);
                for (int64_t j = 0; j < slices; ++j) {
                    Piece pc = matrix_piece(kind, state, row, c, cells, j, slices, items, first_layer, layer_count);
                    pc.bytes = params / as_double(cells) * bytes_per_param(state, per_of(kind)) / as_double(slices);
                    pc.owners = owners([&](const ExplorerGpu& g) {
                        return coord(g, Dim::pp) == stage && coord(g, Dim::tp) == want_tp &&
                               (slices == 1 || g.shard_index == j);
                    });
                    add(std::move(pc));
                }
            }
        }
    }

    // Routed experts of one row: cells over ep first, each cell's experts cut over tp, and ZeRO slices
    // over the dp_shard*cp/ep ranks that hold the same experts.
    void experts(int64_t row, int64_t stage, double params, int64_t first_layer, int64_t layer_count) {
        const int64_t cells = o_.shape.expert_cells;
        const int64_t rest = p_.dp_shard * p_.cp / p_.ep;
        for (PieceState state : {PieceState::weights, PieceState::grads, PieceState::optimizer}) {
            const int64_t zero_slices = zero_shards(state, p_.zero) ? rest : 1;
            const int64_t slices = p_.tp * zero_slices;
            for (int64_t c = 0; c < cells; ++c) {
                const int64_t want_ep = c / (cells / p_.ep);
                for (int64_t j = 0; j < slices; ++j) {
                    const int64_t want_tp = j / zero_slices, want_shard = j % zero_slices;
                    Piece pc = matrix_piece(PieceKind::experts, state, row, c, cells, j, slices, s_.model.experts,
                                            first_layer, layer_count);
                    pc.bytes = params / as_double(cells) * bytes_per_param(state, per_) / as_double(slices);
                    pc.owners = owners([&](const ExplorerGpu& g) {
                        return coord(g, Dim::pp) == stage && coord(g, Dim::tp) == want_tp &&
                               g.ep_position == want_ep && (zero_slices == 1 || g.shard_index / p_.ep == want_shard);
                    });
                    add(std::move(pc));
                }
            }
        }
    }

private:
    // The embedding and the LM head hold their state as memory.hpp counts it (no FP8 copy).
    [[nodiscard]] const StateBytesPerParam& per_of(PieceKind kind) const {
        return kind == PieceKind::embedding || kind == PieceKind::lm_head ? end_per_ : per_;
    }

    Piece matrix_piece(PieceKind kind, PieceState state, int64_t row, int64_t c, int64_t cells, int64_t j,
                       int64_t slices, int64_t items, int64_t first_layer, int64_t layer_count) const {
        Piece pc;
        pc.kind = kind;
        pc.state = state;
        pc.row = row;
        pc.cell = c;
        pc.cells = cells;
        pc.slice = j;
        pc.slices = slices;
        pc.first = items * c / cells;
        pc.last = items * (c + 1) / cells;
        pc.first_layer = first_layer;
        pc.layer_count = layer_count;
        pc.collective = weight_collective(kind, state, p_);
        return pc;
    }

    std::vector<int64_t> owners(const std::function<bool(const ExplorerGpu&)>& holds) const {
        std::vector<int64_t> out;
        for (const ExplorerGpu& g : o_.gpu)
            if (holds(g)) out.push_back(g.rank);
        return out;
    }

    void add(Piece pc) {
        pc.on_every_gpu = static_cast<int64_t>(pc.owners.size()) == o_.gpus;
        o_.pieces.push_back(std::move(pc));
    }

    Ownership& o_;
    const ParallelSpec& p_;
    StateBytesPerParam per_, end_per_;
    const Scenario& s_;
};

}  // namespace

Ownership build_ownership(const Scenario& s) {
    Ownership o;
    o.parallel = s.parallel;
    const ParallelSpec& p = o.parallel;
    o.gpus = p.product();
    o.leftover_copies = std::max<int64_t>(1, s.cluster.gpu_count() / std::max<int64_t>(1, o.gpus));
    o.optimizer_on_host = s.training.offload == Offload::optimizer;
    if (!s.model.has_architecture()) {
        o.unavailable = "the model is given as a parameter count only: there are no layers to draw";
        return o;
    }
    if (o.gpus > kMaxExplorerGpus) {
        o.unavailable = "one copy of this layout spans " + std::to_string(o.gpus) + " GPUs; the explorer draws up to " +
                        std::to_string(kMaxExplorerGpus);
        return o;
    }
    const ParamCounts counts = count_params(s.model);
    const ModelSpec& m = s.model;
    const int64_t dp = p.dp_shard * p.dp_replicate;
    o.shape.batch_rows = cells_for(dp, kCellsWanted, s.training.global_batch);
    o.shape.seq_chunks = cells_for(p.cp * sequence_split(p), kCellsWanted, m.seq_len);
    // The most slices any band of a cell is cut into: ZeRO's dp_shard x cp (experts: x tp, / ep).
    const int64_t zero_slices = p.zero >= 1 ? p.dp_shard * p.cp : 1;
    const int64_t expert_slices = p.tp * (p.zero >= 1 ? p.dp_shard * p.cp / p.ep : 1);
    o.shape.head_cells = budgeted_cells(p.tp, kCellsWanted, m.heads, zero_slices);
    o.shape.column_cells =
        budgeted_cells(p.tp, kCellsWanted, m.ffn_hidden > 0 ? m.ffn_hidden : m.hidden, zero_slices);
    o.shape.expert_cells = m.is_moe() ? budgeted_cells(p.ep, kCellsWanted, m.experts, expert_slices) : 0;
    o.gpu = explorer_gpus(p, o.gpus);
    o.rows = layer_rows(counts, p.pp);

    PieceBuilder b(o, s);
    b.batch();
    const int64_t vocab_cells = o.shape.column_cells;
    b.split_matrix(PieceKind::embedding, -1, 0, counts.embedding, vocab_cells, m.vocab, 0, 0);
    // gelu: up (column-parallel) and down (row-parallel); swiglu: gate and up in, down out.
    const double in_share = m.ffn == Ffn::swiglu ? 2.0 / 3.0 : 0.5;
    for (size_t r = 0; r < o.rows.size(); ++r) {
        const LayerRow& row = o.rows[r];
        const auto ri = static_cast<int64_t>(r);
        const double n = as_double(row.layer_count);
        b.split_matrix(PieceKind::attention, ri, row.stage, counts.attention_per_layer * n, o.shape.head_cells,
                       m.heads, row.first_layer, row.layer_count);
        // An MoE block's always-on MLP is its shared experts (none: the routed experts stand alone).
        const double mlp = row.moe ? counts.shared_experts_per_layer : counts.dense_ffn_per_layer;
        const int64_t columns = row.moe ? m.expert_ffn_hidden * m.shared_experts : m.ffn_hidden;
        if (mlp > 0) {
            b.split_matrix(PieceKind::mlp_in, ri, row.stage, mlp * n * in_share, o.shape.column_cells, columns,
                           row.first_layer, row.layer_count);
            b.split_matrix(PieceKind::mlp_out, ri, row.stage, mlp * n * (1.0 - in_share), o.shape.column_cells, columns,
                           row.first_layer, row.layer_count);
        }
        if (row.moe)
            b.experts(ri, row.stage, counts.routed_experts_per_layer * n, row.first_layer, row.layer_count);
    }
    b.split_matrix(PieceKind::lm_head, -1, p.pp - 1, counts.output + counts.final_norm, vocab_cells, m.vocab, 0, 0);
    return o;
}

}  // namespace shardscope
