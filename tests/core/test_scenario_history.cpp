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
