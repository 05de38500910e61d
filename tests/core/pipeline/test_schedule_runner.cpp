// One rank's side of the animator's schedules on real buffers (core/measure/schedule_runner.hpp): every
// algorithm the Collective animator steps, run on every rank in memory with --check's data, must
// deliver exactly the closed form; the messages a rank posts are the animator's transfers, sized by hand.

#include "core/measure/schedule_runner.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

using namespace shardscope;

namespace {

StepConfig config_for(Collective op, StepAlgorithm algorithm, int ranks, int per_node) {
    StepConfig c;
    c.collective = op;
    c.algorithm = algorithm;
    c.ranks = ranks;
    c.gpus_per_node = per_node;
    return c;
}

int64_t wrong_after_run(const StepConfig& config, int64_t count) {
    const SteppedCollective schedule(config);
    const auto received = run_schedule_in_memory(schedule, count);
    int64_t wrong = 0;
    for (int r = 0; r < config.ranks; ++r) {
        const auto& buffer = received[static_cast<std::size_t>(r)];
        wrong += count_wrong_elements(buffer.data(), static_cast<int64_t>(buffer.size()), config.collective, r,
                                      config.ranks, count);
    }
    return wrong;
}

}  // namespace

TEST_CASE("check data: rank r sends (r+1)*8 + j%7, and the closed forms follow from it by hand") {
    CHECK(check_sent_value(0, 0) == 8.0f);
    CHECK(check_sent_value(2, 9) == 26.0f);  // 3*8 + 9%7
    // All-reduce on 3 ranks, element 4: 12 + 16 + 28 + ... = (8+4) + (16+4) + (24+4) = 60.
    CHECK(check_expected_value(Collective::all_reduce, 1, 3, 10, 4) == 60.0f);
    // Reduce-scatter, rank 1 of 2 with count 5: its element 0 is the sum at index 5: (8+5)+(16+5) = 34.
    CHECK(check_expected_value(Collective::reduce_scatter, 1, 2, 5, 0) == 34.0f);
    // All-gather, count 4: element 6 is rank 1's element 2: 16 + 2.
    CHECK(check_expected_value(Collective::all_gather, 0, 2, 4, 6) == 18.0f);
    // All-to-all, rank 1 of 2, count 3: element 2 comes from rank 0's index 1*3+2 = 5: 8 + 5.
    CHECK(check_expected_value(Collective::all_to_all, 1, 2, 3, 2) == 13.0f);
    CHECK(check_expected_value(Collective::broadcast, 1, 4, 3, 2) == 10.0f);
    const float good[2] = {24.0f, 26.0f};
    const float bad[2] = {24.0f, NAN};
    CHECK(count_wrong_elements(good, 2, Collective::all_reduce, 0, 2, 2) == 0);
    CHECK(count_wrong_elements(bad, 2, Collective::all_reduce, 0, 2, 2) == 1);
}

TEST_CASE("two-rank ring all-reduce by hand: one reduce step and one copy step, one element each") {
    const SteppedCollective schedule(config_for(Collective::all_reduce, StepAlgorithm::ring, 2, 2));
    ScheduleRunner r0(schedule, 0, 2);
    REQUIRE(r0.steps() == 2);  // 2(N-1)
    CHECK(r0.send_elements() == 2);
    CHECK(r0.receive_elements() == 2);
    std::vector<float> send = {8.0f, 9.0f}, receive(2, NAN);
    r0.start(send.data(), receive.data());
    CHECK(receive == send);  // out of place: the input is copied in first
    const StepMessages first = r0.messages(0);
    REQUIRE(first.sends.size() == 1);
    REQUIRE(first.receives.size() == 1);
    CHECK(first.sends[0].peer == 1);
    CHECK(first.sends[0].elements == 1);
    CHECK(first.receives[0].elements == 1);
    // The reduce-scatter step adds what arrives: it is staged, not written over the rank's own chunk.
    CHECK(first.receives[0].data != receive.data());
    CHECK(first.receives[0].data != receive.data() + 1);

    const auto both = run_schedule_in_memory(schedule, 2);
    CHECK(both[0] == std::vector<float>{24.0f, 26.0f});  // (8+16), (9+17)
    CHECK(both[1] == std::vector<float>{24.0f, 26.0f});
}

TEST_CASE("ring all-reduce on 4 ranks: each step moves a quarter of the buffer each way") {
    const SteppedCollective schedule(config_for(Collective::all_reduce, StepAlgorithm::ring, 4, 4));
    ScheduleRunner runner(schedule, 2, 8);
    REQUIRE(runner.steps() == 6);
    for (int k = 0; k < runner.steps(); ++k) {
        const StepMessages m = runner.messages(k);
        REQUIRE(m.sends.size() == 1);
        REQUIRE(m.receives.size() == 1);
        CHECK(m.sends[0].peer == 3);     // the next rank on the ring
        CHECK(m.receives[0].peer == 1);  // the previous one
        CHECK(m.sends[0].elements == 2);
    }
    CHECK(runner.largest_message() == 2);
}

TEST_CASE("every animator algorithm delivers the closed form on every rank, for awkward sizes too") {
    struct Case {
        Collective op;
        StepAlgorithm algorithm;
    };
    const Case cases[] = {
        {Collective::all_reduce, StepAlgorithm::ring},
        {Collective::all_reduce, StepAlgorithm::double_binary_tree},
        {Collective::all_gather, StepAlgorithm::ring},
        {Collective::reduce_scatter, StepAlgorithm::ring},
        {Collective::broadcast, StepAlgorithm::ring},
        {Collective::broadcast, StepAlgorithm::tree},
        {Collective::all_to_all, StepAlgorithm::pairwise},
    };
    for (const Case& c : cases)
        for (int ranks : {2, 3, 4, 5, 8})
            for (int64_t count : {1, 7, 64, 1000}) {
                CAPTURE(std::string(to_string(c.op)));
                CAPTURE(std::string(to_string(c.algorithm)));
                CAPTURE(ranks);
                CAPTURE(count);
                CHECK(wrong_after_run(config_for(c.op, c.algorithm, ranks, ranks), count) == 0);
            }
}

TEST_CASE("the hierarchical all-reduce delivers the sum for each node size that divides the ranks") {
    for (auto [ranks, per_node] : {std::pair{4, 2}, std::pair{8, 2}, std::pair{8, 4}, std::pair{6, 3}})
        for (int64_t count : {1, 13, 96}) {
            CAPTURE(ranks);
            CAPTURE(per_node);
            CAPTURE(count);
            CHECK(wrong_after_run(config_for(Collective::all_reduce, StepAlgorithm::hierarchical, ranks, per_node),
                                  count) == 0);
        }
}

TEST_CASE("a reduce-scatter keeps the rank's own finished chunk, and the check notices a wrong one") {
    const SteppedCollective schedule(config_for(Collective::reduce_scatter, StepAlgorithm::ring, 3, 3));
    auto received = run_schedule_in_memory(schedule, 2);
    REQUIRE(received[1].size() == 2);
    // Rank 1's chunk is indices 2..3 of the summed input; the sum over q = 0..2 of (q+1)*8 + j%7 is
    // 48 + 3 (j%7): j = 2 -> 54, j = 3 -> 57.
    CHECK(received[1] == std::vector<float>{54.0f, 57.0f});
    received[1][0] += 1;
    CHECK(count_wrong_elements(received[1].data(), 2, Collective::reduce_scatter, 1, 3, 2) == 1);
}

TEST_CASE("a runner refuses a rank outside the schedule and a negative count") {
    const SteppedCollective schedule(config_for(Collective::all_reduce, StepAlgorithm::ring, 4, 4));
    CHECK_THROWS_AS(ScheduleRunner(schedule, 4, 8), std::invalid_argument);
    CHECK_THROWS_AS(ScheduleRunner(schedule, 0, -1), std::invalid_argument);
}
