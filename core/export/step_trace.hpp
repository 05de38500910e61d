#pragma once
// The simulated step as a Chrome Trace Event Format file, which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. One process per pipeline stage (what one GPU of that stage does), with threads:
//   compute       every F / B / W op of the schedule, then the step end's optimizer
//   pp send (activations), pp send (gradients)
//                 each activation or gradient sent to the neighbouring stage, with a flow event from
//                 the send to the op that waited for it (two threads: a stage sends both ways at once)
//   tp, cp, ep, dp_shard
//                 the collectives of that mesh dim that each op runs, as their own events, starting
//                 with the op (TP exposed, the others hidden under it up to its compute, the overlap
//                 rules of cost_model.hpp)
//   data parallel the step end's gradient reduction and ZeRO-1/2's all-gather of the updated weights
// Times are microseconds from the step's start. The last event ends at the report's step.
//
// A trace holds at most kMaxTraceEvents events (about 200 bytes each as written: some 100 MB of file,
// and some 0.8 GB of memory while it is written). A step with more (thousands of micro-batches through
// many stages) keeps, on every stage, its first and last micro-batches' ops (the warm-up, the steady
// state's start and the drain) and the step end, and leaves the micro-batches between out; `note` and
// the file's otherData say which, and how many events the whole step would have made.

#include "core/model/report.hpp"

#include <cstddef>
#include <string>

namespace shardscope {

// Thread ids of a stage's process, fixed so every stage lists its streams in one order.
enum class TraceThread {
    compute = 0,
    pp_send = 1,           // activations, forward
    pp_send_gradient = 2,  // gradients, backward
    tp = 3,
    cp = 4,
    ep = 5,
    dp_shard = 6,
    data_parallel = 7
};

inline constexpr std::size_t kMaxTraceEvents = 500'000;

struct StepTrace {
    std::string json;   // the trace file's text, ending in a newline; empty on error
    std::string error;  // why there is no trace: a report without times
    std::string note;   // "" for the whole step, else what the bound left out
    [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};

// The trace of the step `report` (build_report's) priced: its pipeline simulated again, event for event,
// within `max_events`.
[[nodiscard]] StepTrace step_trace(const Report& report, std::size_t max_events = kMaxTraceEvents);

}  // namespace shardscope
