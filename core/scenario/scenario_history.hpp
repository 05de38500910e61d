#pragma once
// Snapshot undo/redo of scenario edits. The UI commits once per finished gesture (a whole slider
// drag is one step), so the history holds whole scenarios, which are small.

#include "core/scenario/scenario.hpp"

#include <cstddef>
#include <vector>

namespace shardscope {

class ScenarioHistory {
public:
    explicit ScenarioHistory(Scenario initial, size_t capacity = 200);

    [[nodiscard]] const Scenario& current() const noexcept { return states_[index_]; }
    // Records s as the newest state (dropping any redo tail); a no-op when s equals current().
    void commit(const Scenario& s);
    // Starts over from s with no undo or redo.
    void reset(const Scenario& s);
    [[nodiscard]] bool can_undo() const noexcept { return index_ > 0; }
    [[nodiscard]] bool can_redo() const noexcept { return index_ + 1 < states_.size(); }
    const Scenario& undo() noexcept;
    const Scenario& redo() noexcept;
    [[nodiscard]] size_t size() const noexcept { return states_.size(); }

private:
    std::vector<Scenario> states_;
    size_t index_ = 0;
    size_t capacity_;
};

}  // namespace shardscope
