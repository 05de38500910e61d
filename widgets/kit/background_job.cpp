#include "widgets/kit/background_job.hpp"

namespace shardscope::ui {

namespace {

BackgroundJob::SlicedWork in_one_slice(std::function<void(const std::atomic<bool>&)> work) {
    return [work = std::move(work)](const std::atomic<bool>& cancel, BackgroundJob::Clock::time_point) {
        work(cancel);
        return true;
    };
}

}  // namespace

BackgroundJob::BackgroundJob(std::function<void(const std::atomic<bool>& cancel)> work)
    : BackgroundJob(in_one_slice(std::move(work))) {}

#ifdef SHARDSCOPE_JOB_THREADS

BackgroundJob::BackgroundJob(SlicedWork work) {
    thread_ = std::thread([this, work = std::move(work)] {
        while (!work(cancel_, Clock::time_point::max())) {
        }
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            finished_.store(true, std::memory_order_release);
        }
        done_.notify_all();
    });
}

BackgroundJob::~BackgroundJob() {
    cancel();
    if (thread_.joinable()) thread_.join();
}

bool BackgroundJob::wait_for(Clock::duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return done_.wait_for(lock, timeout, [this] { return finished(); });
}

void BackgroundJob::wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return finished(); });
}

#else

BackgroundJob::BackgroundJob(SlicedWork work) : work_(std::move(work)) {}

// Nothing runs between waits, so a cancelled job has nothing left to stop.
BackgroundJob::~BackgroundJob() { cancel(); }

void BackgroundJob::run_until(Clock::time_point deadline) {
    while (!finished()) {
        if (work_(cancel_, deadline)) finished_.store(true, std::memory_order_release);
        if (Clock::now() >= deadline) return;
    }
}

bool BackgroundJob::wait_for(Clock::duration timeout) {
    run_until(Clock::now() + timeout);
    return finished();
}

void BackgroundJob::wait() { run_until(Clock::time_point::max()); }

#endif

}  // namespace shardscope::ui
