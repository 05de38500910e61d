#pragma once
// Who owns what (the Strategy explorer's question): for a scenario, the pieces of one training step
// (the batch of sequences, every layer's weight matrices with their gradients and optimizer state,
// the experts of an MoE layer, the embedding and the LM head), each with the GPUs that hold it.
//
// The picture is a toy one: a real model has thousands of rows and columns, so each kind of piece is
// drawn as a handful of cells (ToyShape) and every cell stands for a real index range (heads 0-15 of
// 32, layers 0-3, sequences 0-31 ...). Ownership itself is exact: the GPUs listed for a cell are the
// ranks that hold that range, read off the same mesh layout as core/mesh/mesh.hpp (parallel.order) and the
// same sharding rules as core/model/memory.hpp:
// - TP cuts attention by heads and each MLP matrix in tp slices (Megatron: the first matrix by its
//   columns, the second by its rows), the embedding and LM head by vocabulary rows.
// - PP gives each stage whole layers (stage_layers); the embedding sits on stage 0, the LM head on
//   the last.
// - ZeRO shards over the dp_shard x cp ranks (as memory.hpp does): stage 1 the optimizer state, 2 also
//   the gradients, 3 also the weights. A sharded cell is drawn as dp_shard*cp slices.
// - EP splits the routed experts of a block over ep ranks of the combined cp x dp_shard group (the
//   innermost ep of them, as mesh.hpp numbers EP groups), then over tp; ZeRO shards each local expert
//   again over the remaining dp_shard*cp/ep ranks.
// - DP (dp_shard and dp_replicate) splits the batch rows; CP splits each sequence into cp contiguous
//   chunks (real CP implementations often zig-zag the chunks to balance causal attention; the
//   ownership of tokens per rank is the same in count). SP (with TP) cuts each chunk's hidden state at
//   the block boundaries into tp slices of tokens, one per tp rank (Korthikanti et al. 2022: between
//   the TP regions the residual stream, norms and dropouts stay sequence-sharded); without SP every tp
//   rank holds all of them.
//
// The explorer's GPUs are the ranks of ONE copy of the layout: tp*cp*pp*dp_shard*dp_replicate as
// requested. GPUs the cluster has beyond that are extra data-parallel replicas (docs/design.md), holding
// exactly what the first copy holds; `leftover_copies` says how many copies the cluster makes.

#include "core/mesh/mesh.hpp"
#include "core/scenario/scenario.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class PieceKind { batch, embedding, attention, mlp_in, mlp_out, experts, lm_head };
// What of a weight piece is meant: the matrix itself, its gradient or its optimizer state. Batch
// pieces are `data`.
enum class PieceState { data, weights, grads, optimizer };

[[nodiscard]] std::string_view to_string(PieceKind k) noexcept;
[[nodiscard]] std::string_view to_string(PieceState s) noexcept;

// Layouts past this many GPUs per copy are not broken into pieces (a picture of them says nothing).
inline constexpr int64_t kMaxExplorerGpus = 64;

// How many cells each kind is drawn with. Every count is a multiple of the factor that cuts it, so a
// cell never straddles two owners; cells cut into many ZeRO slices come fewer, so that a band of a
// group stays about 32 pieces.
struct ToyShape {
    int64_t batch_rows = 1;    // sequences of the step, grouped (a multiple of dp_shard*dp_replicate)
    int64_t seq_chunks = 1;    // chunks of one sequence (a multiple of cp, and of cp x tp under SP)
    int64_t head_cells = 1;    // attention heads (a multiple of tp)
    int64_t column_cells = 1;  // MLP columns / rows, vocabulary rows (a multiple of tp)
    int64_t expert_cells = 0;  // routed experts (a multiple of ep); 0 for a dense model
};

// One drawn row of the layer stack: a run of consecutive blocks inside one pipeline stage.
struct LayerRow {
    int64_t stage = 0;
    int64_t first_layer = 0;
    int64_t layer_count = 0;
    bool moe = false;  // its blocks have routed experts instead of a dense MLP
};

struct Piece {
    PieceKind kind = PieceKind::batch;
    PieceState state = PieceState::data;
    int64_t row = -1;          // LayerRow index for attention / mlp / experts; batch row for batch; -1 else
    int64_t cell = 0;          // cell index along the kind's axis (head cell, column cell, expert, chunk)
    int64_t cells = 1;
    int64_t slice = 0;         // ZeRO (or expert TP) slice of the cell
    int64_t slices = 1;
    // The real range this piece stands for, [first, last): heads, MLP columns, experts or vocabulary
    // rows; for batch pieces the sequences (and tokens in token_first/token_last).
    int64_t first = 0, last = 0;
    int64_t token_first = 0, token_last = 0;
    int64_t first_layer = 0, layer_count = 0;
    std::vector<int64_t> owners;  // explorer ranks that hold it, ascending
    bool on_every_gpu = false;    // owners are all the explorer's GPUs
    double bytes = 0;             // bytes of it on each owner
    std::string collective;       // the communication that touches it, in words
    [[nodiscard]] bool copied() const noexcept { return owners.size() > 1; }
};

// One explorer GPU: its rank, coordinates per mesh dim (dim_index order) and EP position.
struct ExplorerGpu {
    int64_t rank = 0;
    MeshCoords coords{};
    int64_t shard_index = 0;  // position in its combined cp x dp_shard group (ascending rank)
    int64_t ep_position = 0;  // shard_index % ep: which slice of the experts it holds
};

struct Ownership {
    std::string unavailable;  // why no pieces (too many GPUs, no architecture); empty when drawn
    int64_t gpus = 1;         // GPUs in one copy of the layout
    int64_t leftover_copies = 1;
    // training.offload optimizer: each rank's optimizer shard lives in its host's memory, not the GPU's
    // (its pieces and bytes are the rank's all the same).
    bool optimizer_on_host = false;
    ParallelSpec parallel;    // the requested factors the pieces follow
    ToyShape shape;
    std::vector<LayerRow> rows;
    std::vector<ExplorerGpu> gpu;
    std::vector<Piece> pieces;

    // Indices of the pieces `rank` holds.
    [[nodiscard]] std::vector<size_t> held_by(int64_t rank) const;
    // Bytes of weights, gradients and optimizer state `rank` holds (sum over its pieces).
    [[nodiscard]] double state_bytes_held_by(int64_t rank) const;
    // The same, per state (batch pieces count as `data`: hidden states at one block boundary).
    struct Held {
        double data = 0, weights = 0, grads = 0, optimizer = 0;
        // The sequences and tokens of its batch pieces, [first, last) (0, 0 when it reads none).
        int64_t seq_first = 0, seq_last = 0, token_first = 0, token_last = 0;
    };
    [[nodiscard]] Held held_bytes(int64_t rank) const;
};

// Expects a scenario that passed validate_scenario.
[[nodiscard]] Ownership build_ownership(const Scenario& s);

}  // namespace shardscope
