#include "widgets/strategy/strategy_canvas.hpp"

#include "core/scenario/units.hpp"
#include "widgets/kit/plot.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace shardscope::ui {

namespace {

constexpr float kCellGap = 2.0f;
constexpr float kBandGap = 3.0f;  // between the weights, gradients and optimizer bands of a block
constexpr float kGroupGap = 16.0f;
constexpr float kColumnGap = 40.0f;
constexpr float kChipGap = 6.0f;
constexpr const char* kCaption =
    "Each colour is one GPU of one copy of the layout; hover a GPU (or click to pin it) to see what it holds.";
constexpr ImU32 kText = IM_COL32(225, 228, 234, 255);
constexpr ImU32 kTextDim = IM_COL32(150, 156, 168, 255);
constexpr ImU32 kRule = IM_COL32(90, 96, 110, 255);

std::string with_commas(int64_t v) {
    std::string digits = std::to_string(v);
    std::string out;
    const int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += ',';
        out += digits[static_cast<size_t>(i)];
    }
    return out;
}

std::string range_text(int64_t first, int64_t last) {
    return last - first <= 1 ? with_commas(first) : with_commas(first) + "-" + with_commas(last - 1);
}

float text_width(const std::string& s, float size = 0) {
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    return size > 0 ? w * size / ImGui::GetFontSize() : w;
}

// The longest of the candidates that fits `width` (the last one otherwise).
std::string fit(const std::vector<std::string>& candidates, float width, float size = 0) {
    for (const std::string& c : candidates)
        if (text_width(c, size) <= width) return c;
    return candidates.back();
}

int band_of(PieceState s) {
    switch (s) {
        case PieceState::weights: return 0;
        case PieceState::grads: return 1;
        case PieceState::optimizer: return 2;
        case PieceState::data: return 0;
    }
    return 0;
}

PieceRect piece_rect(const Ownership& own, size_t index, ImVec2 min, ImVec2 max) {
    const Piece& p = own.pieces[index];
    PieceRect r;
    r.min = min;
    r.max = max;
    r.piece = index;
    r.hatched = p.copied();
    // A piece every GPU holds has no owner to colour it by: neutral grey (and hatched).
    r.colour_gpu = p.on_every_gpu && own.gpus > 1 ? -1 : static_cast<int>(p.owners.empty() ? 0 : p.owners.front());
    r.fill = r.colour_gpu < 0 ? kEveryGpuFill : plot::categorical_colour(r.colour_gpu);
    return r;
}

class Layout {
public:
    Layout(const Ownership& own, const Scenario& s, float width)
        : own_(own), s_(s), fs_(ImGui::GetFontSize()), small_(ImGui::GetFontSize() * 0.82f) {
        d_.width = width;
    }

    StrategyDrawing run() {
        if (!own_.unavailable.empty()) {
            text({0, 0}, "Nothing to draw: " + own_.unavailable + ".", kTextDim);
            if (own_.gpus > kMaxExplorerGpus)
                text({0, fs_ + 4}, "Lower the counts above (or Reset to one GPU) to see who holds what; the price below is this layout's.",
                     kTextDim);
            d_.height = 2 * (fs_ + 4);
            return std::move(d_);
        }
        float y = chips(0);
        y = legend(y + 4, std::min(d_.width, text_width(kCaption, small_)));
        // Side by side when there is room; a narrow panel stacks the batch above the model.
        const bool side_by_side = d_.width >= 900;
        const float batch_w = side_by_side ? std::clamp(d_.width * 0.22f, 170.0f, 330.0f) : std::min(d_.width, 330.0f);
        const float bottom_batch = batch(y + 6, batch_w);
        const float bottom_model = side_by_side ? model(y + 6, batch_w + kColumnGap, d_.width)
                                                : model(bottom_batch + 6, 0, d_.width);
        d_.height = std::max(bottom_batch, bottom_model) + 6;
        return std::move(d_);
    }

private:
    void text(ImVec2 at, std::string s, ImU32 colour, float size = 0) {
        d_.texts.push_back(TextRecord{at, std::move(s), colour, size});
    }

    // The GPUs of one copy of the layout, wrapped in rows.
    float chips(float y) {
        const int64_t n = own_.gpus;
        text({0, y}, fit({kCaption, "Each colour is one GPU; hover one to see what it holds."}, d_.width, small_), kTextDim,
             small_);
        y += small_ + 4;
        // Up to 16 GPUs each chip names its coordinates (wrapping rows if it must); past that, chips
        // only carry the GPU's number (its coordinates are in the summary when it is focused).
        const bool with_coords = n <= 16;
        // Narrow and many: chips shrink to the bare number.
        const bool bare = !with_coords && (d_.width - kChipGap * static_cast<float>(n - 1)) / static_cast<float>(n) <
                                              text_width("GPU 00") + 14 &&
                          d_.width < 1000;
        float needed = bare ? text_width("00") + 12 : text_width("GPU 00") + 14;
        if (with_coords)
            for (int64_t r = 0; r < n; ++r) needed = std::max(needed, text_width(gpu_coords_text(own_, r), small_) + 14);
        const float fill = (d_.width - kChipGap * static_cast<float>(n - 1)) / static_cast<float>(n);
        const float w = fill >= needed ? std::min(fill, 132.0f) : needed;
        const int per_row = std::max(1, static_cast<int>((d_.width + kChipGap) / (w + kChipGap)));
        const float h = with_coords ? fs_ + small_ + 7 : fs_ + 8;
        for (int64_t r = 0; r < n; ++r) {
            const float x = static_cast<float>(r % per_row) * (w + kChipGap);
            const float cy = y + static_cast<float>(r / per_row) * (h + kChipGap);
            GpuChip chip;
            chip.min = {x, cy};
            chip.max = {x + w, cy + h};
            chip.rank = r;
            chip.fill = plot::categorical_colour(static_cast<int>(r));
            chip.name = bare ? std::to_string(r) : "GPU " + std::to_string(r);
            chip.coords = with_coords ? gpu_coords_text(own_, r) : "";
            d_.chips.push_back(chip);
        }
        const int64_t rows = (n + per_row - 1) / per_row;
        y += static_cast<float>(rows) * (h + kChipGap);
        if (own_.leftover_copies > 1) {
            const int64_t more = own_.leftover_copies - 1;
            text({0, y}, "The cluster's other GPUs run " + std::to_string(more) + (more == 1 ? " more copy" : " more copies") +
                             " of this layout, each a plain data-parallel replica.",
                 kTextDim, small_);
            y += small_ + 4;
        }
        return y;
    }

    void swatch(float x, float y, ImU32 fill, bool hatched, int gpu) {
        PieceRect r;
        r.min = {x, y};
        r.max = {x + 26, y + fs_ - 2};
        r.fill = fill;
        r.hatched = hatched;
        r.colour_gpu = gpu;
        d_.swatches.push_back(r);
    }

    // The three kinds of fill; on the caption line when it has room, else flowing on lines of their own.
    float legend(float y, float caption_w) {
        const std::pair<int, const char*> entries[] = {
            {0, "held by one GPU only"}, {1, "copied on several GPUs (coloured by the first)"}, {2, "copied on every GPU"}};
        const auto entry_w = [&](const char* label) { return 32 + text_width(label, small_) + 20; };
        float total = 0;
        for (const auto& e : entries) total += entry_w(e.second);
        const bool inline_row = caption_w + 40 + total <= d_.width;
        float x = inline_row ? d_.width - total + 20 : 0;
        float ly = inline_row ? 0 : y;
        for (const auto& [kind, label] : entries) {
            if (!inline_row && x > 0 && x + entry_w(label) - 20 > d_.width) {
                x = 0;
                ly += fs_ + 4;
            }
            const int gpu = kind == 2 ? -1 : 1;
            swatch(x, ly, gpu < 0 ? kEveryGpuFill : plot::categorical_colour(gpu), kind > 0, gpu);
            text({x + 32, ly + (fs_ - small_) * 0.5f}, label, kText, small_);
            x += entry_w(label);
        }
        return inline_row ? y : ly + fs_ + 6;
    }

    // The batch: rows of sequences (split by DP), columns of tokens (split by CP).
    float batch(float y, float w) {
        const ToyShape& sh = own_.shape;
        text({0, y}, "Batch", kText);
        text({0, y + fs_ + 2},
             fit({with_commas(s_.training.global_batch) + " sequences x " + with_commas(s_.model.seq_len) + " tokens",
                  with_commas(s_.training.global_batch) + " seq x " + with_commas(s_.model.seq_len) + " tok"},
                 w, small_),
             kTextDim, small_);
        y += fs_ + small_ + 10;
        const float row_h = std::clamp(320.0f / static_cast<float>(sh.batch_rows), 5.0f, fs_ + 3);
        const bool labels = row_h >= small_;
        const float label_w = labels ? text_width("seq 0000-0000", small_) : 0.0f;
        const float gx = label_w + (labels ? 6 : 0);
        const float cell_w = (w - gx - kCellGap * static_cast<float>(sh.seq_chunks - 1)) / static_cast<float>(sh.seq_chunks);
        std::map<std::pair<int64_t, int64_t>, size_t> index;
        for (size_t i = 0; i < own_.pieces.size(); ++i)
            if (own_.pieces[i].kind == PieceKind::batch) index[{own_.pieces[i].row, own_.pieces[i].cell}] = i;
        const float gap = row_h >= 8 ? kCellGap : 1.0f;
        for (int64_t r = 0; r < sh.batch_rows; ++r) {
            const float ry = y + static_cast<float>(r) * row_h;
            for (int64_t c = 0; c < sh.seq_chunks; ++c) {
                const size_t i = index[{r, c}];
                const float x = gx + static_cast<float>(c) * (cell_w + kCellGap);
                d_.pieces.push_back(piece_rect(own_, i, {x, ry}, {x + cell_w, ry + row_h - gap}));
            }
            if (labels) {
                const Piece& p = own_.pieces[index[{r, 0}]];
                text({0, ry + (row_h - gap - small_) * 0.5f}, "seq " + range_text(p.first, p.last), kTextDim, small_);
            }
        }
        y += static_cast<float>(sh.batch_rows) * row_h + 6;
        const std::string split_rows = own_.parallel.dp_shard * own_.parallel.dp_replicate > 1
                                           ? "rows: sequences, split by DP"
                                           : "rows: sequences (no DP: one GPU group reads all)";
        const bool sp = own_.parallel.sequence_parallel && own_.parallel.tp > 1;
        const std::string split_cols = own_.parallel.cp > 1 ? (sp ? "columns: tokens, split by CP, then by SP over tp"
                                                                  : "columns: tokens, split by CP")
                                                            : (sp ? "columns: tokens, split by SP over tp"
                                                                  : "columns: tokens (no CP)");
        text({gx, y}, fit({split_rows, "rows: sequences"}, w - gx, small_), kTextDim, small_);
        text({gx, y + small_ + 2}, fit({split_cols, "columns: tokens"}, w - gx, small_), kTextDim, small_);
        y += 2 * small_ + 10;
        d_.summary_at = {0, y};
        if (own_.gpus > 16) return y + 4 * (fs_ + 4);
        return held_table(y + 6, w);
    }

    // What each GPU holds (core's sums of its pieces): weights / grads / optimizer per GPU, or, past 8
    // GPUs, the total model state with two GPUs to a row so the table stays as tall as the picture.
    float held_table(float y, float w) {
        d_.summary_is_table = true;
        const int per_row = own_.gpus > 8 ? 2 : 1;
        const float block_w = w / static_cast<float>(per_row);
        const bool three = per_row == 1 && w >= 290;
        text({0, y}, "What each GPU holds", kText);
        y += fs_ + 4;
        const float name_w = text_width("GPU 00") + 22;
        const float col_w = three ? (block_w - name_w) / 3 : block_w - name_w;
        const char* heads3[] = {"weights", "gradients", own_.optimizer_on_host ? "optimizer (host)" : "optimizer"};
        for (int b = 0; b < per_row; ++b)
            for (int c = 0; c < (three ? 3 : 1); ++c)
                text({block_w * static_cast<float>(b) + name_w + col_w * static_cast<float>(c), y},
                     three ? heads3[c] : "model state", kTextDim, small_);
        y += small_ + 4;
        const float row_h = fs_ + 4;
        for (int64_t r = 0; r < own_.gpus; ++r) {
            const float x = block_w * static_cast<float>(r % per_row);
            const float ry = y + row_h * static_cast<float>(r / per_row);
            const Ownership::Held h = own_.held_bytes(r);
            GpuChip row;
            row.min = {x, ry};
            row.max = {x + block_w - 4, ry + row_h};
            row.rank = r;
            row.fill = plot::categorical_colour(static_cast<int>(r));
            d_.held_rows.push_back(row);
            swatch(x + 2, ry + 3, row.fill, false, static_cast<int>(r));
            d_.swatches.back().max = {x + 14, ry + row_h - 3};
            text({x + 20, ry + 2}, "GPU " + std::to_string(r), kText, small_);
            const double values3[] = {h.weights, h.grads, h.optimizer};
            if (three)
                for (int c = 0; c < 3; ++c)
                    text({x + name_w + col_w * static_cast<float>(c), ry + 2}, format_memory(values3[c]), kText, small_);
            else text({x + name_w, ry + 2}, format_memory(h.weights + h.grads + h.optimizer), kText, small_);
        }
        const int64_t rows = (own_.gpus + per_row - 1) / per_row;
        return y + row_h * static_cast<float>(rows) + 6;
    }

    struct Group {
        PieceKind kind;
        int64_t cells;
        float x = 0;
    };

    float model(float y, float x0, float x1) {
        const ToyShape& sh = own_.shape;
        const bool any_mlp = std::any_of(own_.pieces.begin(), own_.pieces.end(),
                                         [](const Piece& p) { return p.kind == PieceKind::mlp_in; });
        std::vector<Group> groups{{PieceKind::attention, sh.head_cells}};
        if (any_mlp) {
            groups.push_back({PieceKind::mlp_in, sh.column_cells});
            groups.push_back({PieceKind::mlp_out, sh.column_cells});
        }
        if (sh.expert_cells > 0) groups.push_back({PieceKind::experts, sh.expert_cells});
        const float gutter = text_width("layers 000-000") + 24;
        const float gx0 = x0 + gutter;
        int64_t total_cells = 0;
        for (const Group& g : groups) total_cells += g.cells;
        const float usable = x1 - gx0 - kGroupGap * static_cast<float>(groups.size() - 1) -
                             kCellGap * static_cast<float>(total_cells - static_cast<int64_t>(groups.size()));
        cell_w_ = usable / static_cast<float>(total_cells);
        float gx = gx0;
        for (Group& g : groups) {
            g.x = gx;
            gx += static_cast<float>(g.cells) * (cell_w_ + kCellGap) - kCellGap + kGroupGap;
        }
        band_h_ = std::max(9.0f, std::round(fs_ * 0.66f));
        const float row_h = 3 * band_h_ + 2 * kBandGap;

        text({x0, y}, fit({"Model: " + s_.model.name + ", as the GPUs hold it", s_.model.name}, x1 - x0), kText);
        text({x0, y + fs_ + 2},
             fit({"each block: weights / gradients / optimizer state, top to bottom", "W weights, G gradients, O optimizer"},
                 x1 - x0, small_),
             kTextDim, small_);
        y += fs_ + small_ + 10;
        for (const Group& g : groups) header(g, y);
        y += fs_ + small_ + 8;

        const float full_w = x1 - gx0;
        int64_t stage = -1;
        for (size_t r = 0; r < own_.rows.size(); ++r) {
            const LayerRow& row = own_.rows[r];
            if (row.stage != stage && own_.parallel.pp > 1) {
                stage = row.stage;
                stage_rule(x0, x1, y, stage);
                y += small_ + 6;
            }
            // The embedding belongs to the first stage: drawn inside it, above its first block.
            if (r == 0) y = whole_row(PieceKind::embedding, -1, "embedding", gx0, full_w, y, row_h, x0);
            const std::string label = row.layer_count == 1 ? "layer " + std::to_string(row.first_layer)
                                                           : "layers " + range_text(row.first_layer, row.first_layer + row.layer_count);
            text({x0, y + (row_h - fs_) * 0.5f}, label, kText);
            band_letters(gx0, y);
            for (const Group& g : groups) cells_of(g.kind, static_cast<int64_t>(r), g.x, cell_w_, y);
            y += row_h + 4;
        }
        // ... and the LM head to the last, below its last block.
        y = whole_row(PieceKind::lm_head, -1, "LM head", gx0, full_w, y, row_h, x0);
        return y;
    }

    // W / G / O beside the three bands of a row, right-aligned against the cells.
    void band_letters(float right, float y) {
        const float size = std::min(small_, band_h_ + 1);
        const char* letters[] = {"W", "G", "O"};
        for (int b = 0; b < 3; ++b)
            text({right - 14, y + static_cast<float>(b) * (band_h_ + kBandGap) + (band_h_ - size) * 0.5f}, letters[b],
                 kTextDim, size);
    }

    void stage_rule(float x0, float x1, float y, int64_t stage) {
        const std::string label = "pipeline stage " + std::to_string(stage);
        text({x0, y}, label, kTextDim, small_);
        d_.lines.push_back({{x0 + text_width(label, small_) + 8, y + small_ * 0.5f}, {x1, y + small_ * 0.5f}, kRule, 1});
    }

    void header(const Group& g, float y) {
        const float w = static_cast<float>(g.cells) * (cell_w_ + kCellGap) - kCellGap;
        std::string name, detail;
        switch (g.kind) {
            case PieceKind::attention:
                name = fit({"Attention", "Attn"}, w);
                detail = with_commas(s_.model.heads) + " heads";
                break;
            case PieceKind::mlp_in:
                name = fit({"MLP in (columns)", "MLP in", "in"}, w);
                detail = with_commas(s_.model.ffn_hidden) + " columns";
                break;
            case PieceKind::mlp_out:
                name = fit({"MLP out (rows)", "MLP out", "out"}, w);
                detail = with_commas(s_.model.ffn_hidden) + " rows";
                break;
            case PieceKind::experts:
                name = fit({"Routed experts", "Experts", "MoE"}, w);
                detail = with_commas(s_.model.experts) + (s_.model.experts == 1 ? " expert, top-" : " experts, top-") +
                         std::to_string(s_.model.top_k);
                break;
            default: break;
        }
        text({g.x, y}, name, kText);
        text({g.x, y + fs_ + 1}, fit({detail, ""}, w, small_), kTextDim, small_);
        d_.lines.push_back({{g.x, y + fs_ + small_ + 4}, {g.x + w, y + fs_ + small_ + 4}, kRule, 1});
    }

    // Every piece of `kind` in layer row `row`, laid out in cells from x; bands by state, slices across.
    void cells_of(PieceKind kind, int64_t row, float x, float cell_w, float y) {
        for (size_t i = 0; i < own_.pieces.size(); ++i) {
            const Piece& p = own_.pieces[i];
            if (p.kind != kind || p.row != row) continue;
            const float cx = x + static_cast<float>(p.cell) * (cell_w + kCellGap);
            const float sw = cell_w / static_cast<float>(p.slices);
            const float by = y + static_cast<float>(band_of(p.state)) * (band_h_ + kBandGap);
            d_.pieces.push_back(piece_rect(own_, i, {cx + sw * static_cast<float>(p.slice), by},
                                           {cx + sw * static_cast<float>(p.slice + 1), by + band_h_}));
        }
    }

    // The embedding or the LM head: vocabulary cells across the whole model width.
    float whole_row(PieceKind kind, int64_t row, const std::string& label, float x, float w, float y, float row_h,
                    float label_x) {
        const int64_t cells = own_.shape.column_cells;
        const float cw = (w - kCellGap * static_cast<float>(cells - 1)) / static_cast<float>(cells);
        text({label_x, y + (row_h - fs_) * 0.5f}, label, kText);
        band_letters(x, y);
        cells_of(kind, row, x, cw, y);
        text({x, y + row_h + 1},
             with_commas(s_.model.vocab) + "-token vocabulary" + (own_.parallel.tp > 1 ? ", rows split by TP" : ""),
             kTextDim, small_);
        return y + row_h + small_ + 10;
    }

    const Ownership& own_;
    const Scenario& s_;
    float fs_, small_;
    float cell_w_ = 10, band_h_ = 9;
    StrategyDrawing d_;
};

// Draws diagonal hatching over a rectangle (clipped to it).
void hatch(ImDrawList* list, ImVec2 a, ImVec2 b, ImU32 colour) {
    constexpr float kStep = 6.0f;
    list->PushClipRect(a, b, true);
    const float h = b.y - a.y;
    for (float x = a.x - h; x < b.x; x += kStep) list->AddLine({x, b.y}, {x + h, a.y}, colour, 1.2f);
    list->PopClipRect();
}

ImVec2 add(ImVec2 a, ImVec2 b) { return {a.x + b.x, a.y + b.y}; }

// Consecutive records in one band that touch and share a property are painted as one rectangle, so a
// finely sliced picture stays a few thousand vertices.
template <typename Same>
void for_each_run(const std::vector<PieceRect>& rs, Same same, const std::function<void(ImVec2, ImVec2, const PieceRect&)>& f) {
    size_t i = 0;
    while (i < rs.size()) {
        ImVec2 a = rs[i].min, b = rs[i].max;
        size_t j = i + 1;
        while (j < rs.size() && rs[j].min.y == a.y && rs[j].max.y == b.y && std::fabs(rs[j].min.x - b.x) < 0.5f &&
               same(rs[i], rs[j])) {
            b.x = rs[j].max.x;
            ++j;
        }
        f(a, b, rs[i]);
        i = j;
    }
}

}  // namespace

std::string gpu_coords_text(const Ownership& own, int64_t rank, CoordNames names) {
    if (rank < 0 || rank >= static_cast<int64_t>(own.gpu.size())) return "";
    const ExplorerGpu& g = own.gpu[static_cast<size_t>(rank)];
    const bool mesh = names == CoordNames::mesh;
    std::string out;
    const auto add = [&](const std::string& name, int64_t position) {
        if (!out.empty()) out += mesh ? ", " : " ";
        out += name + (mesh ? " " : "") + std::to_string(position);
    };
    for (Dim d : kMeshDims)
        if (own.parallel.factor(d) > 1) add(mesh ? std::string(to_string(d)) : dim_facts(d).strategy_key, g.coords[mesh_axis(d)]);
    if (own.parallel.ep > 1) add("ep", g.ep_position);
    return out.empty() ? "whole model" : out;
}

StrategyDrawing layout_strategy_drawing(const Ownership& own, const Scenario& s, float width) {
    return Layout(own, s, width).run();
}

const PieceRect* piece_at(const StrategyDrawing& d, ImVec2 p) {
    for (const PieceRect& r : d.pieces)
        if (p.x >= r.min.x && p.x < r.max.x && p.y >= r.min.y && p.y < r.max.y) return &r;
    return nullptr;
}

const GpuChip* chip_at(const StrategyDrawing& d, ImVec2 p) {
    for (const auto* list : {&d.chips, &d.held_rows})
        for (const GpuChip& c : *list)
            if (p.x >= c.min.x && p.x < c.max.x && p.y >= c.min.y && p.y < c.max.y) return &c;
    return nullptr;
}

void paint_strategy_drawing(const StrategyDrawing& d, const Ownership& own, ImDrawList* list, ImVec2 o,
                            std::optional<int64_t> focus, const PieceRect* hovered) {
    const ImU32 hatch_colour = IM_COL32(255, 255, 255, 95);
    const auto holds = [&](const PieceRect& r) {
        if (!focus) return true;
        const auto& owners = own.pieces[r.piece].owners;
        return std::binary_search(owners.begin(), owners.end(), *focus);
    };
    // Fills, then hatching, then the veil over what the focused GPU does not hold.
    for_each_run(d.pieces, [](const PieceRect& a, const PieceRect& b) { return a.fill == b.fill; },
                 [&](ImVec2 a, ImVec2 b, const PieceRect& r) { list->AddRectFilled(add(o, a), add(o, b), r.fill); });
    for_each_run(d.pieces, [](const PieceRect& a, const PieceRect& b) { return a.hatched == b.hatched; },
                 [&](ImVec2 a, ImVec2 b, const PieceRect& r) {
                     if (r.hatched) hatch(list, add(o, a), add(o, b), hatch_colour);
                 });
    if (focus)
        for_each_run(d.pieces, [&](const PieceRect& a, const PieceRect& b) { return holds(a) == holds(b); },
                     [&](ImVec2 a, ImVec2 b, const PieceRect& r) {
                         if (!holds(r)) list->AddRectFilled(add(o, a), add(o, b), IM_COL32(22, 24, 30, 200));
                     });
    for (const GpuChip& row : d.held_rows)
        if (focus && *focus == row.rank)
            list->AddRectFilled(add(o, row.min), add(o, row.max), plot::categorical_colour(static_cast<int>(row.rank), 0.28f), 3);
    for (const PieceRect& r : d.swatches) {
        list->AddRectFilled(add(o, r.min), add(o, r.max), r.fill);
        if (r.hatched) hatch(list, add(o, r.min), add(o, r.max), hatch_colour);
    }
    for (const LineRecord& l : d.lines) list->AddLine(add(o, l.a), add(o, l.b), l.colour, l.thickness);
    for (const GpuChip& c : d.chips) {
        const bool on = !focus || *focus == c.rank;
        list->AddRectFilled(add(o, c.min), add(o, c.max), on ? c.fill : plot::categorical_colour(static_cast<int>(c.rank), 0.35f), 4);
        if (focus && *focus == c.rank) list->AddRect(add(o, c.min), add(o, c.max), IM_COL32(255, 255, 255, 255), 4, 0, 2);
        const ImU32 ink = IM_COL32(20, 22, 28, 255);
        list->AddText(add(o, {c.min.x + 6, c.min.y + 3}), ink, c.name.c_str());
        if (!c.coords.empty())
            list->AddText(nullptr, ImGui::GetFontSize() * 0.82f,
                          add(o, {c.min.x + 6, c.min.y + 3 + ImGui::GetFontSize()}), ink, c.coords.c_str());
    }
    if (hovered) {
        // Who holds the piece under the mouse: its owners' chips and the piece itself outlined.
        const auto& owners = own.pieces[hovered->piece].owners;
        for (const GpuChip& c : d.chips)
            if (std::binary_search(owners.begin(), owners.end(), c.rank))
                list->AddRect(add(o, {c.min.x - 2, c.min.y - 2}), add(o, {c.max.x + 2, c.max.y + 2}),
                              IM_COL32(255, 255, 255, 230), 5, 0, 2);
        list->AddRect(add(o, {hovered->min.x - 1, hovered->min.y - 1}), add(o, {hovered->max.x + 1, hovered->max.y + 1}),
                      IM_COL32(255, 255, 255, 255), 0, 0, 1.5f);
    }
    for (const TextRecord& t : d.texts)
        list->AddText(nullptr, t.size > 0 ? t.size : ImGui::GetFontSize(), add(o, t.pos), t.colour, t.text.c_str());
    if (focus && *focus < own.gpus && !d.summary_is_table) {
        const Ownership::Held h = own.held_bytes(*focus);
        const ImVec2 at = add(o, d.summary_at);
        const float line = ImGui::GetFontSize() + 4;
        const std::string lines[] = {
            "GPU " + std::to_string(*focus) + " (" + gpu_coords_text(own, *focus) + ") holds:",
            "weights " + format_memory(h.weights) + ", grads " + format_memory(h.grads),
            "optimizer state " + format_memory(h.optimizer) + (own.optimizer_on_host ? ", in host memory" : ""),
            "hidden states " + format_memory(h.data) + " / block",
        };
        for (int i = 0; i < 4; ++i)
            list->AddText(ImVec2(at.x, at.y + line * static_cast<float>(i)), i == 0 ? kText : kTextDim, lines[i].c_str());
    }
}

std::string describe_piece(const Ownership& own, const Scenario& s, const Piece& p) {
    std::string what;
    switch (p.kind) {
        case PieceKind::batch:
            what = "Batch: sequences " + range_text(p.first, p.last) + ", tokens " + range_text(p.token_first, p.token_last);
            break;
        case PieceKind::embedding: what = "Embedding, vocabulary rows " + range_text(p.first, p.last); break;
        case PieceKind::lm_head: what = "LM head, vocabulary rows " + range_text(p.first, p.last); break;
        case PieceKind::attention:
            what = std::string(p.last - p.first == 1 ? "Attention, head " : "Attention, heads ") + range_text(p.first, p.last) +
                   " of " + with_commas(s.model.heads);
            break;
        case PieceKind::mlp_in: what = "MLP in, columns " + range_text(p.first, p.last); break;
        case PieceKind::mlp_out: what = "MLP out, rows " + range_text(p.first, p.last); break;
        case PieceKind::experts:
            what = std::string(p.last - p.first == 1 ? "Expert " : "Experts ") + range_text(p.first, p.last) + " of " +
                   with_commas(s.model.experts);
            break;
    }
    if (p.layer_count > 0)
        what += p.layer_count == 1 ? ", layer " + std::to_string(p.first_layer)
                                   : ", layers " + range_text(p.first_layer, p.first_layer + p.layer_count);
    if (p.state == PieceState::grads) what += " - gradients";
    if (p.state == PieceState::optimizer)
        what += own.optimizer_on_host ? " - optimizer state, in its holder's host memory" : " - optimizer state";
    if (p.state == PieceState::weights) what += " - weights";
    // The ranges above are the whole block; a holder keeps one slice of it (ZeRO's shards, TP's split).
    if (p.slices > 1)
        what += " (slice " + std::to_string(p.slice + 1) + " of " + std::to_string(p.slices) + ": each holder keeps 1/" +
                std::to_string(p.slices) + " of it)";

    std::string who;
    if (p.on_every_gpu && own.gpus > 1) who = "every GPU (" + std::to_string(own.gpus) + " copies)";
    else if (p.owners.size() == 1) who = "GPU " + std::to_string(p.owners.front()) + " only";
    else {
        for (size_t i = 0; i < p.owners.size(); ++i) who += (i ? ", GPU " : "GPU ") + std::to_string(p.owners[i]);
        who += " (" + std::to_string(p.owners.size()) + " copies)";
    }
    const std::string size = p.state == PieceState::data ? format_memory(p.bytes) + " of hidden states per block"
                                                          : format_memory(p.bytes) + " on each holder";
    return what + "\nHeld by: " + who + "\nSize: " + size + "\nCommunication: " + p.collective;
}

}  // namespace shardscope::ui
