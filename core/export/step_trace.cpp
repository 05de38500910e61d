#include "core/export/step_trace.hpp"

#include "core/model/cost_model.hpp"
#include "core/pipeline/pipeline.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace shardscope {

namespace {

using nlohmann::json;

constexpr double kMicroseconds = 1e6;  // the format's timestamps are microseconds

int tid(TraceThread t) { return static_cast<int>(t); }

TraceThread stream_thread(const std::string& name) {
    if (name == "tp") return TraceThread::tp;
    if (name == "cp") return TraceThread::cp;
    if (name == "ep") return TraceThread::ep;
    return TraceThread::dp_shard;
}

const char* thread_title(TraceThread t) {
    switch (t) {
        case TraceThread::compute: return "compute";
        case TraceThread::pp_send: return "pp send (activations)";
        case TraceThread::pp_send_gradient: return "pp send (gradients)";
        case TraceThread::tp: return "tp collectives";
        case TraceThread::cp: return "cp ring exchange";
        case TraceThread::ep: return "ep all-to-all";
        case TraceThread::dp_shard: return "dp_shard (FSDP) collectives";
        case TraceThread::data_parallel: return "data parallel (step end)";
    }
    return "";
}

// Writes events, or with count_only only counts them (to learn a step's size before holding it):
// a counted event is never built.
class TraceWriter {
public:
    explicit TraceWriter(bool count_only = false) : count_only_(count_only) {}
    void metadata(int pid, const std::string& process) {
        if (counted(2)) return;
        events_.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", process}}}});
        events_.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    }
    void thread(int pid, TraceThread t) {
        if (counted(2)) return;
        events_.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid(t)},
                           {"args", {{"name", thread_title(t)}}}});
        events_.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid(t)},
                           {"args", {{"sort_index", tid(t)}}}});
    }
    // A complete event from `start_s` lasting `duration_s`; nothing when it lasts no time.
    void span(int pid, TraceThread t, const std::string& name, const char* category, double start_s, double duration_s,
              json args = json::object()) {
        if (!(duration_s > 0) || counted(1)) return;
        events_.push_back({{"ph", "X"},
                           {"name", name},
                           {"cat", category},
                           {"pid", pid},
                           {"tid", tid(t)},
                           {"ts", start_s * kMicroseconds},
                           {"dur", duration_s * kMicroseconds},
                           {"args", std::move(args)}});
    }
    // A flow arrow from (from_pid, from_t) at `from_s` to the slice of (to_pid, to_t) that encloses `to_s`.
    void flow(int from_pid, TraceThread from_t, double from_s, int to_pid, TraceThread to_t, double to_s) {
        const int id = ++flows_;
        if (counted(2)) return;
        events_.push_back({{"ph", "s"}, {"name", "p2p"}, {"cat", "p2p"}, {"id", id}, {"pid", from_pid},
                           {"tid", tid(from_t)}, {"ts", from_s * kMicroseconds}});
        events_.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "p2p"}, {"cat", "p2p"}, {"id", id}, {"pid", to_pid},
                           {"tid", tid(to_t)}, {"ts", to_s * kMicroseconds}});
    }
    [[nodiscard]] json take() { return std::move(events_); }
    [[nodiscard]] std::size_t count() const noexcept { return count_; }

private:
    // Counts `events` more; true when they are only counted, not written.
    bool counted(std::size_t events) noexcept {
        count_ += events;
        return count_only_;
    }
    bool count_only_ = false;
    std::size_t count_ = 0;
    json events_ = json::array();
    int flows_ = 0;
};

// The stage whose layers an op of `chunk` on device `stage` runs: DualPipe's second direction runs the
// mirror stage's.
int owner_stage(const PipelineSpec& spec, int stage, int chunk) {
    return spec.schedule == Schedule::dualpipe && chunk == 1 ? spec.stages - 1 - stage : stage;
}

const StageCost& stage_cost(const PipelineSpec& spec, int stage) {
    return spec.costs.size() == 1 ? spec.costs.front() : spec.costs[static_cast<std::size_t>(stage)];
}

std::string op_name(const PipelineSpec& spec, const PipelineEvent& e) {
    std::string name = std::string(to_string(e.kind)) + " mb " + std::to_string(e.microbatch);
    if (spec.virtual_stages > 1 || spec.schedule == Schedule::dualpipe) name += " chunk " + std::to_string(e.chunk);
    return name;
}

// One op on the compute thread, its collectives on their streams, and the send that fed it.
void write_op(TraceWriter& out, const PipelineSpec& spec, const Report& r, int stage, const PipelineEvent& e) {
    const int owner = owner_stage(spec, stage, e.chunk);
    const StageStepWork& work = r.stage_work[static_cast<std::size_t>(owner)];
    const StageCost& whole = stage_cost(spec, owner);
    const bool forward = e.kind == OpKind::forward;
    // The op's share of one micro-batch's pass through the stage: 1/v of it for an interleaved chunk;
    // B and W split the backward (and the communication folded into it) as the cost model does.
    const double whole_s = forward ? whole.f : whole.full_backward();
    const double duration = e.end - e.start;
    const double share = whole_s > 0 ? duration / whole_s : 0.0;
    const double compute = (forward ? work.forward_s : work.backward_s) * share;
    out.span(stage, TraceThread::compute, op_name(spec, e), "compute", e.start, duration,
             {{"microbatch", e.microbatch},
              {"chunk", e.chunk},
              {"layers_of_stage", owner},
              {"compute_s", compute},
              {"exposed_comm_s", std::max(0.0, duration - compute)}});
    for (const StageStepWork::Stream& s : work.streams) {
        const double time = (forward ? s.forward_s : s.backward_s) * share;
        out.span(stage, stream_thread(s.name), s.name + (forward ? " fwd mb " : " bwd mb ") + std::to_string(e.microbatch),
                 "collective", e.start, time, {{"microbatch", e.microbatch}, {"op", std::string(to_string(e.kind))}});
    }
    if (e.from_stage < 0 || e.from_stage == stage || !(spec.p2p_time > 0)) return;
    const double sent = e.input_ready - spec.p2p_time;
    const TraceThread sender = forward ? TraceThread::pp_send : TraceThread::pp_send_gradient;
    out.span(e.from_stage, sender,
             std::string(forward ? "activation" : "gradient") + " mb " + std::to_string(e.microbatch) + " to stage " +
                 std::to_string(stage),
             "p2p", sent, spec.p2p_time, {{"to_stage", stage}, {"microbatch", e.microbatch}});
    out.flow(e.from_stage, sender, sent, stage, TraceThread::compute, e.start);
}

// After the pipeline drains: the gradient reduction (its hidden part runs under the last backward), the
// compute it slowed, the all-gather of the updated weights and the optimizer step.
void write_step_end(TraceWriter& out, int stage, const StageStepWork& w, double makespan) {
    const double reduced = makespan + w.reduce_past_s;
    out.span(stage, TraceThread::data_parallel, "gradient reduction", "collective", std::max(0.0, reduced - w.reduce_s),
             std::min(w.reduce_s, reduced), {{"exposed_s", w.reduce_past_s}});
    out.span(stage, TraceThread::compute, "backward slowed beside the reduction", "contention", reduced, w.contention_s);
    const double gathered = reduced + w.contention_s;
    out.span(stage, TraceThread::data_parallel, "all-gather of updated weights", "collective", gathered, w.gather_s);
    out.span(stage, TraceThread::compute, "optimizer step", "compute", gathered + w.gather_s, w.optimizer_s);
}

// How many micro-batch numbers the ops carry (DualPipe numbers each direction's on its own).
int microbatch_numbers(const PipelineTimeline& timeline) {
    int count = 0;
    for (const std::vector<PipelineEvent>& stage : timeline.events)
        for (const PipelineEvent& e : stage) count = std::max(count, e.microbatch + 1);
    return count;
}

// Whether an op is kept when `kept` micro-batch numbers are kept at each end of `numbers`.
bool at_an_end(const PipelineEvent& e, int kept, int numbers) { return e.microbatch < kept || e.microbatch >= numbers - kept; }

// Every stage's process and threads, the ops `shown` keeps, and the step end.
template <typename Shown>
void write_events(TraceWriter& out, const PipelineSpec& spec, const PipelineTimeline& timeline, const Report& r,
                  Shown shown) {
    for (int st = 0; st < timeline.stages; ++st) {
        out.metadata(st, "stage " + std::to_string(st) + " (one GPU)");
        out.thread(st, TraceThread::compute);
        if (spec.p2p_time > 0) {
            out.thread(st, TraceThread::pp_send);
            out.thread(st, TraceThread::pp_send_gradient);
        }
        for (const StageStepWork::Stream& s : r.stage_work[static_cast<std::size_t>(st)].streams)
            out.thread(st, stream_thread(s.name));
        out.thread(st, TraceThread::data_parallel);
    }
    for (int st = 0; st < timeline.stages; ++st) {
        for (const PipelineEvent& e : timeline.events[static_cast<std::size_t>(st)])
            if (shown(e)) write_op(out, spec, r, st, e);
        write_step_end(out, st, r.stage_work[static_cast<std::size_t>(st)], timeline.makespan);
    }
}

}  // namespace

StepTrace step_trace(const Report& r, std::size_t max_events) {
    StepTrace result;
    if (!r.time.step || r.stage_work.empty()) {
        result.error = "this scenario's step has no times (a model given only as a parameter count, or a pipeline "
                       "that could not be simulated)";
        return result;
    }
    const PipelineSpec spec = simulated_pipeline_spec(r.pipeline);
    const PipelineTimeline timeline = simulate_pipeline(spec);
    if (!timeline.ok()) {
        result.error = "pipeline: " + timeline.error;
        return result;
    }
    const auto events_kept = [&](int kept, int numbers) {
        TraceWriter counter(true);
        write_events(counter, spec, timeline, r, [&](const PipelineEvent& e) { return at_an_end(e, kept, numbers); });
        return counter.count();
    };
    // The micro-batches kept at each end: all of them when the whole step fits, else as many as keep
    // the trace within the bound (first guessed from the mean events a micro-batch makes).
    const int numbers = microbatch_numbers(timeline);
    const std::size_t whole = events_kept(numbers, numbers);
    int kept = numbers;
    if (whole > max_events && numbers >= 3) {
        const std::size_t fixed = events_kept(0, numbers);  // processes, threads and the step end
        const double per_microbatch = static_cast<double>(whole - fixed) / numbers;
        const double room = max_events > fixed ? static_cast<double>(max_events - fixed) : 0.0;
        kept = std::max(1, std::min(numbers / 2, static_cast<int>(room / (2 * per_microbatch))));
        while (kept > 1 && events_kept(kept, numbers) > max_events) --kept;
    }
    const bool thinned = 2 * kept < numbers;
    if (thinned)
        result.note = "the whole step would make " + std::to_string(whole) + " trace events, past the bound of " +
                      std::to_string(max_events) + ": micro-batches " + std::to_string(kept) + " to " +
                      std::to_string(numbers - kept - 1) + " of " + std::to_string(numbers) +
                      " are left out on every stage (the first and last " + std::to_string(kept) +
                      " and the step end are kept)";
    TraceWriter out;
    write_events(out, spec, timeline, r, [&](const PipelineEvent& e) { return at_an_end(e, kept, numbers); });
    json file = {{"traceEvents", out.take()},
                 {"displayTimeUnit", "ms"},
                 {"otherData",
                  {{"producer", "shardscope " SHARDSCOPE_VERSION},
                   {"schedule", std::string(to_string(spec.schedule))},
                   {"stages", spec.stages},
                   {"microbatches", spec.microbatches},
                   {"step_s", *r.time.step},
                   {"pipeline_makespan_s", timeline.makespan}}}};
    if (thinned) file["otherData"]["thinned"] = result.note;
    result.json = file.dump(1) + "\n";
    return result;
}

}  // namespace shardscope
