#include "core/scenario/scenario_history.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

namespace {
Scenario with_tp(int64_t tp) {
    Scenario s = default_scenario();
    s.parallel.tp = tp;
    return s;
}
}  // namespace

TEST_CASE("undo walks back through committed edits and redo forward again") {
    ScenarioHistory h(with_tp(1));
    h.commit(with_tp(2));
    h.commit(with_tp(4));
    CHECK(h.current().parallel.tp == 4);
    CHECK(h.undo().parallel.tp == 2);
    CHECK(h.undo().parallel.tp == 1);
    CHECK_FALSE(h.can_undo());
    CHECK(h.undo().parallel.tp == 1);  // nothing older: stays put
    CHECK(h.redo().parallel.tp == 2);
    CHECK(h.redo().parallel.tp == 4);
    CHECK_FALSE(h.can_redo());
}

TEST_CASE("a new edit after undo drops the redo tail; an unchanged commit adds nothing") {
    ScenarioHistory h(with_tp(1));
    h.commit(with_tp(2));
    h.commit(with_tp(2));
    CHECK(h.size() == 2);
    h.undo();
    h.commit(with_tp(8));
    CHECK_FALSE(h.can_redo());
    CHECK(h.undo().parallel.tp == 1);
    CHECK(h.redo().parallel.tp == 8);
}

TEST_CASE("the history forgets the oldest states past its capacity") {
    ScenarioHistory h(with_tp(1), 3);
    h.commit(with_tp(2));
    h.commit(with_tp(4));
    h.commit(with_tp(8));
    CHECK(h.size() == 3);
    h.undo();
    CHECK(h.undo().parallel.tp == 2);
    CHECK_FALSE(h.can_undo());
}

TEST_CASE("each state keeps the tag it was committed with: the document it belongs to") {
    ScenarioHistory h(with_tp(1), 3);
    CHECK(h.tag() == 0);
    h.commit(with_tp(2));  // an edit keeps the current tag
    CHECK(h.tag() == 0);
    h.commit(with_tp(4), 1);  // a file opened: a state of document 1
    CHECK(h.tag() == 1);
    h.commit(with_tp(8));
    CHECK(h.tag() == 1);
    // Undo walks back into document 0's states, redo forward into 1's; tags move with the states
    // when the oldest is forgotten (capacity 3: tp 1 is gone).
    CHECK(h.undo().parallel.tp == 4);
    CHECK(h.tag() == 1);
    CHECK(h.undo().parallel.tp == 2);
    CHECK(h.tag() == 0);
    CHECK_FALSE(h.can_undo());
    h.redo();
    CHECK(h.tag() == 1);
    // A file that holds the scenario already adds no state: the current one takes its tag.
    h.commit(with_tp(4), 2);
    CHECK(h.size() == 3);
    CHECK(h.tag() == 2);
    h.reset(with_tp(1));
    CHECK(h.tag() == 0);
}
