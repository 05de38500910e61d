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
    // Records s as the newest state (dropping any redo tail); a no-op when s equals current(). The
    // state keeps the current state's tag.
    void commit(const Scenario& s);
    // The same, the new state tagged `tag` (the UI's document it belongs to). When s equals current()
    // no state is added and the current one takes the tag.
    void commit(const Scenario& s, size_t tag);
    // Starts over from s with no undo or redo.
    void reset(const Scenario& s);
    [[nodiscard]] bool can_undo() const noexcept { return index_ > 0; }
    [[nodiscard]] bool can_redo() const noexcept { return index_ + 1 < states_.size(); }
    const Scenario& undo() noexcept;
    const Scenario& redo() noexcept;
    [[nodiscard]] size_t size() const noexcept { return states_.size(); }
    // What the current state was tagged with (0 for the first state and after reset).
    [[nodiscard]] size_t tag() const noexcept { return tags_[index_]; }

private:
    std::vector<Scenario> states_;
    std::vector<size_t> tags_;
    size_t index_ = 0;
    size_t capacity_;
};

}  // namespace shardscope
