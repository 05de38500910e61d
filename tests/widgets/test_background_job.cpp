// The worker the Planner and Measure panels share.
#include "widgets/kit/background_job.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

using shardscope::ui::BackgroundJob;

TEST_CASE("background job: not finished while the work runs, its result visible once finished") {
    std::atomic<bool> release{false};
    int result = 0;
    BackgroundJob job([&](const std::atomic<bool>& cancel) {
        while (!release.load() && !cancel.load()) std::this_thread::yield();
        result = 42;
    });
    // The work cannot return before `release`: a bounded wait gives up and says so.
    CHECK_FALSE(job.wait_for(std::chrono::milliseconds(1)));
    CHECK_FALSE(job.finished());
    release = true;
    job.wait();
    CHECK(job.finished());
    CHECK(result == 42);
    CHECK(job.wait_for(std::chrono::milliseconds(0)));
}

TEST_CASE("background job: cancel() and destruction hand the work its stop flag") {
    bool stopped_by_cancel = false;
    {
        BackgroundJob job([&](const std::atomic<bool>& cancel) {
            while (!cancel.load()) std::this_thread::yield();
            stopped_by_cancel = true;
        });
        job.cancel();
        job.wait();
        CHECK(stopped_by_cancel);
    }
    bool stopped_by_destruction = false;
    {
        BackgroundJob job([&](const std::atomic<bool>& cancel) {
            while (!cancel.load()) std::this_thread::yield();
            stopped_by_destruction = true;
        });
    }  // joins: the flag is set before the wait
    CHECK(stopped_by_destruction);
}

TEST_CASE("background job: sliced work is called until it says it is done, each call with a deadline") {
    std::atomic<int> calls{0};
    std::atomic<bool> saw_deadline{true};
    BackgroundJob job(BackgroundJob::SlicedWork([&](const std::atomic<bool>&, BackgroundJob::Clock::time_point deadline) {
        // On a worker thread nothing waits on a slice: its deadline is the clock's last moment.
        if (deadline != BackgroundJob::Clock::time_point::max()) saw_deadline = false;
        return ++calls == 5;
    }));
    job.wait();
    CHECK(job.finished());
    CHECK(calls.load() == 5);
    CHECK(saw_deadline.load());
}

TEST_CASE("background job: sliced work stops at a cancel, as it is told to return once cancelled") {
    std::atomic<bool> stopped{false};
    {
        BackgroundJob job(BackgroundJob::SlicedWork([&](const std::atomic<bool>& cancel, BackgroundJob::Clock::time_point) {
            if (!cancel.load()) return false;
            stopped = true;
            return true;
        }));
    }
    CHECK(stopped.load());
}
