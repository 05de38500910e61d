#pragma once
// One piece of work that takes longer than a frame (the Planner's search, the Measure panel's sweep).
// The UI polls finished() each frame, may wait a bounded time for it, and reads the work's results only
// once it is finished. Destroying a job asks the work to stop (through the flag it was handed) and
// waits for it, so a panel can drop a stale job at once.
//
// On the desktop the work runs on a worker thread. The browser page has no threads (it must run from
// any static host), so there the work runs inside wait_for() and wait(): sliced work a slice at a time
// up to the wait's deadline, so a panel that waits a few milliseconds per frame keeps the page alive.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define SHARDSCOPE_JOB_THREADS 1
#endif

namespace shardscope::ui {

class BackgroundJob {
public:
    using Clock = std::chrono::steady_clock;
    // Work that stops at `deadline` and is called again: true once it is done (or cancelled).
    using SlicedWork = std::function<bool(const std::atomic<bool>& cancel, Clock::time_point deadline)>;

    explicit BackgroundJob(SlicedWork work);
    // Work done in one piece; it should return soon after the flag it is given turns true.
    explicit BackgroundJob(std::function<void(const std::atomic<bool>& cancel)> work);
    ~BackgroundJob();
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    // True once the work has returned: everything it wrote is visible to the caller from then on.
    [[nodiscard]] bool finished() const noexcept { return finished_.load(std::memory_order_acquire); }
    // Waits until the work has returned or `timeout` has passed; returns finished().
    bool wait_for(Clock::duration timeout);
    // Waits until the work has returned.
    void wait();
    // Asks the work to stop; it still has to return before finished().
    void cancel() noexcept { cancel_.store(true); }

private:
    std::atomic<bool> cancel_{false};
    std::atomic<bool> finished_{false};
#ifdef SHARDSCOPE_JOB_THREADS
    std::mutex mutex_;
    std::condition_variable done_;
    std::thread thread_;
#else
    void run_until(Clock::time_point deadline);
    SlicedWork work_;
#endif
};

}  // namespace shardscope::ui
