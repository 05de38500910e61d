#pragma once
// One piece of work on a worker thread, for panels whose work takes longer than a frame (the Planner's
// search, the Measure panel's sweep). The UI polls finished() each frame, may wait a bounded time for
// it, and reads the work's results only once it is finished. Destroying a job asks the work to stop
// (through the flag it was handed) and waits for the thread, so a panel can drop a stale job at once.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shardscope::ui {

class BackgroundJob {
public:
    // Starts `work` on a new thread; it should return soon after the flag it is given turns true.
    explicit BackgroundJob(std::function<void(const std::atomic<bool>& cancel)> work);
    ~BackgroundJob();
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    // True once the work has returned: everything it wrote is visible to the caller from then on.
    [[nodiscard]] bool finished() const noexcept { return finished_.load(std::memory_order_acquire); }
    // Waits until the work has returned or `timeout` has passed; returns finished().
    bool wait_for(std::chrono::steady_clock::duration timeout);
    // Waits until the work has returned.
    void wait();
    // Asks the work to stop; it still has to return before finished().
    void cancel() noexcept { cancel_.store(true); }

private:
    std::atomic<bool> cancel_{false};
    std::atomic<bool> finished_{false};
    std::mutex mutex_;
    std::condition_variable done_;
    std::thread thread_;
};

}  // namespace shardscope::ui
