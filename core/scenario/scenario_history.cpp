#include "core/scenario/scenario_history.hpp"

namespace shardscope {

ScenarioHistory::ScenarioHistory(Scenario initial, size_t capacity)
    : states_{std::move(initial)}, tags_{0}, capacity_(capacity < 2 ? 2 : capacity) {}

void ScenarioHistory::commit(const Scenario& s) { commit(s, tag()); }

void ScenarioHistory::commit(const Scenario& s, size_t tag) {
    if (s == current()) {
        tags_[index_] = tag;
        return;
    }
    states_.resize(index_ + 1);
    tags_.resize(index_ + 1);
    states_.push_back(s);
    tags_.push_back(tag);
    if (states_.size() > capacity_) {
        states_.erase(states_.begin());
        tags_.erase(tags_.begin());
    }
    index_ = states_.size() - 1;
}

void ScenarioHistory::reset(const Scenario& s) {
    states_.assign(1, s);
    tags_.assign(1, 0);
    index_ = 0;
}

const Scenario& ScenarioHistory::undo() noexcept {
    if (can_undo()) --index_;
    return current();
}

const Scenario& ScenarioHistory::redo() noexcept {
    if (can_redo()) ++index_;
    return current();
}

}  // namespace shardscope
