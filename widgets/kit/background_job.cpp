#include "widgets/kit/background_job.hpp"

namespace shardscope::ui {

BackgroundJob::BackgroundJob(std::function<void(const std::atomic<bool>& cancel)> work) {
    thread_ = std::thread([this, work = std::move(work)] {
        work(cancel_);
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

bool BackgroundJob::wait_for(std::chrono::steady_clock::duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return done_.wait_for(lock, timeout, [this] { return finished(); });
}

void BackgroundJob::wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return finished(); });
}

}  // namespace shardscope::ui
