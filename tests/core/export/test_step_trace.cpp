// The step trace (Chrome Trace Event Format): its makespan is the report's step, its ops are the
// simulator's, every send has a flow to the op that waited for it, and every collective sits inside the
// op that runs it.
#include "core/export/step_trace.hpp"

#include "core/model/cost_model.hpp"
#include "core/pipeline/pipeline.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

using namespace shardscope;
using nlohmann::json;

namespace {

json trace_of(const Report& r) {
    const StepTrace t = step_trace(r);
    REQUIRE_MESSAGE(t.ok(), t.error);
    return json::parse(t.json);
}

std::vector<json> of_phase(const json& trace, const std::string& ph) {
    std::vector<json> out;
    for (const json& e : trace.at("traceEvents"))
        if (e.at("ph") == ph) out.push_back(e);
    return out;
}

double end_us(const json& e) { return e.at("ts").get<double>() + e.at("dur").get<double>(); }

bool is_op(const json& e) { return e.at("tid") == static_cast<int>(TraceThread::compute) && e.at("cat") == "compute" &&
                                   e.at("name") != "optimizer step"; }

// The default scenario (Llama 3 8B on 64 H100s): tp 2, pp 2, dp_shard 8, dp_replicate 2, ZeRO-3, 1F1B.
Scenario zero_bubble_with_tp() {
    Scenario s = default_scenario();
    s.training.schedule = Schedule::zb_h1;
    return s;
}

}  // namespace

TEST_CASE("the trace's last event ends at the report's step, which is the makespan plus the longest stage end") {
    const Scenario s = default_scenario();
    const Report r = build_report(s);
    REQUIRE(r.time.step.has_value());
    REQUIRE(r.stage_work.size() == 2);
    const PipelineTimeline timeline = simulate_pipeline(simulated_pipeline_spec(r.pipeline));
    double longest_end = 0;
    for (const StageStepWork& w : r.stage_work) {
        CHECK(w.optimizer_s > 0);
        CHECK(w.reduce_s > 0);  // ZeRO-3 reduce-scatters its gradients at the end
        longest_end = std::max(longest_end, w.end_s());
    }
    CHECK(*r.time.step == doctest::Approx(timeline.makespan + longest_end).epsilon(1e-12));

    const json trace = trace_of(r);
    double last = 0;
    for (const json& e : of_phase(trace, "X")) last = std::max(last, end_us(e));
    CHECK(last / 1e6 == doctest::Approx(*r.time.step).epsilon(1e-9));
    CHECK(trace.at("otherData").at("step_s").get<double>() == doctest::Approx(*r.time.step).epsilon(1e-12));
}

TEST_CASE("one process per stage, the simulator's ops on its compute thread, a flow for every send") {
    const Report r = build_report(default_scenario());
    const json trace = trace_of(r);
    const PipelineTimeline timeline = simulate_pipeline(simulated_pipeline_spec(r.pipeline));

    std::set<int> named_processes;
    for (const json& m : of_phase(trace, "M"))
        if (m.at("name") == "process_name") {
            named_processes.insert(m.at("pid").get<int>());
            CHECK(m.at("args").at("name").get<std::string>().rfind("stage ", 0) == 0);
        }
    CHECK(named_processes == std::set<int>{0, 1});

    std::size_t ops = 0;
    for (const json& e : of_phase(trace, "X")) ops += is_op(e) ? 1 : 0;
    CHECK(ops == timeline.event_count());
    // 1F1B on 2 stages, m micro-batches: each F of stage 1 waits for stage 0's activation and each B of
    // stage 0 for stage 1's gradient: 2m sends.
    const auto m = static_cast<std::size_t>(r.microbatches);
    CHECK(ops == 4 * m);
    const std::vector<json> starts = of_phase(trace, "s"), finishes = of_phase(trace, "f");
    CHECK(starts.size() == 2 * m);
    REQUIRE(finishes.size() == starts.size());
    std::map<int, json> finish_by_id;
    for (const json& f : finishes) finish_by_id[f.at("id").get<int>()] = f;
    for (const json& st : starts) {
        const json& f = finish_by_id.at(st.at("id").get<int>());
        CHECK(f.at("pid") != st.at("pid"));               // to the other stage
        CHECK(f.at("ts").get<double>() >= st.at("ts").get<double>() + r.pipeline.p2p_time * 1e6 * (1 - 1e-9));
        CHECK(f.at("bp") == "e");
    }
}

TEST_CASE("each collective starts with the op that runs it and ends within it") {
    const Report r = build_report(default_scenario());
    const json trace = trace_of(r);
    std::map<std::pair<int, double>, double> op_end;  // (stage, start) -> end
    for (const json& e : of_phase(trace, "X"))
        if (is_op(e)) op_end[{e.at("pid").get<int>(), e.at("ts").get<double>()}] = end_us(e);
    std::set<int> stream_threads;
    for (const json& e : of_phase(trace, "X")) {
        if (e.at("cat") != "collective" || e.at("tid") == static_cast<int>(TraceThread::data_parallel)) continue;
        stream_threads.insert(e.at("tid").get<int>());
        const auto it = op_end.find({e.at("pid").get<int>(), e.at("ts").get<double>()});
        REQUIRE_MESSAGE(it != op_end.end(), e.dump());
        CHECK(end_us(e) <= it->second * (1 + 1e-12));
    }
    // tp 2 and ZeRO-3 over dp_shard 8: both streams talk every micro-batch.
    CHECK(stream_threads == std::set<int>{static_cast<int>(TraceThread::tp), static_cast<int>(TraceThread::dp_shard)});
}

TEST_CASE("a split backward shares its collectives between B and W in proportion to their time") {
    const Report r = build_report(zero_bubble_with_tp());
    REQUIRE(r.pipeline.schedule == Schedule::zb_h1);
    const json trace = trace_of(r);
    const auto tp = std::find_if(r.stage_work[0].streams.begin(), r.stage_work[0].streams.end(),
                                 [](const StageStepWork::Stream& s) { return s.name == "tp"; });
    REQUIRE(tp != r.stage_work[0].streams.end());
    double backward_us = 0, forward_us = 0;
    for (const json& e : of_phase(trace, "X")) {
        if (e.at("pid") != 0 || e.at("tid") != static_cast<int>(TraceThread::tp)) continue;
        if (e.at("name") == "tp bwd mb 0") backward_us += e.at("dur").get<double>();
        if (e.at("name") == "tp fwd mb 0") forward_us += e.at("dur").get<double>();
    }
    CHECK(backward_us / 1e6 == doctest::Approx(tp->backward_s).epsilon(1e-9));
    CHECK(forward_us / 1e6 == doctest::Approx(tp->forward_s).epsilon(1e-9));
}

TEST_CASE("a model given only as a parameter count has no trace, and says why") {
    Scenario s = default_scenario();
    s.model.layers = 0;
    s.model.hidden = 0;
    s.model.params = 8e9;
    const StepTrace t = step_trace(build_report(s));
    CHECK_FALSE(t.ok());
    CHECK(t.error.find("parameter count") != std::string::npos);
    CHECK(t.json.empty());
}

TEST_CASE("no two events of one thread overlap, so a viewer stacks none of them wrongly, on every schedule") {
    for (Schedule schedule : kAllSchedules) {
        Scenario s = default_scenario();  // pp 2, tp 2, ZeRO-3 over dp_shard 8
        s.parallel.pp = 4;
        s.parallel.dp_shard = 4;
        s.training.schedule = schedule;
        s.training.virtual_stages = schedule == Schedule::interleaved_1f1b ? 2 : 1;
        CAPTURE(to_string(schedule));
        REQUIRE(validate_scenario(s).empty());
        const Report r = build_report(s);
        const json trace = trace_of(r);
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_thread;
        for (const json& e : of_phase(trace, "X"))
            by_thread[{e.at("pid").get<int>(), e.at("tid").get<int>()}].push_back({e.at("ts").get<double>(), end_us(e)});
        for (auto& [thread, spans] : by_thread) {
            std::sort(spans.begin(), spans.end());
            for (std::size_t i = 1; i < spans.size(); ++i)
                CHECK_MESSAGE(spans[i].first >= spans[i - 1].second - 1e-6 * spans[i - 1].second,
                              "pid " << thread.first << " tid " << thread.second << " at " << spans[i].first);
        }
        double last = 0;
        for (const auto& [thread, spans] : by_thread)
            for (const auto& span : spans) last = std::max(last, span.second);
        CHECK(last / 1e6 == doctest::Approx(*r.time.step).epsilon(1e-9));
    }
}

TEST_CASE("a step past the bound keeps each stage's first and last micro-batches and says what it left out") {
    // dp 16 and 4,096 sequences a step: 256 micro-batches of 1 on each of the 2 stages, 6 events an op
    // (its span, its tp and dp_shard collectives, a send's span and its flow pair, where it has one):
    // some 6,000 events, past a bound of 2,000 (the default, kMaxTraceEvents, is 500,000).
    Scenario s = default_scenario();
    s.training.global_batch = 4096;
    REQUIRE(validate_scenario(s).empty());
    const Report r = build_report(s);
    const int m = r.microbatches;
    REQUIRE(m == 256);
    CHECK(step_trace(r).note.empty());
    const StepTrace whole = step_trace(r, 100000);
    REQUIRE(whole.note.empty());
    const std::size_t whole_events = json::parse(whole.json).at("traceEvents").size();
    const StepTrace t = step_trace(r, 2000);
    REQUIRE(t.ok());
    const json trace = json::parse(t.json);
    CHECK(trace.at("traceEvents").size() <= 2000);
    CHECK(trace.at("otherData").at("thinned") == t.note);
    CHECK(t.note.find("the whole step would make " + std::to_string(whole_events) + " trace events") == 0);
    // Every op kept is one of the first or last `kept` micro-batches, and both ends are there.
    int kept = 0;
    std::set<int> seen;
    for (const json& e : of_phase(trace, "X"))
        if (is_op(e)) seen.insert(e.at("args").at("microbatch").get<int>());
    while (seen.count(kept)) ++kept;
    REQUIRE(kept > 0);
    CHECK(seen.size() == static_cast<std::size_t>(2 * kept));
    CHECK(seen.count(m - kept) == 1);
    CHECK(seen.count(m - 1) == 1);
    CHECK(t.note.find("micro-batches " + std::to_string(kept) + " to " + std::to_string(m - kept - 1) + " of " +
                      std::to_string(m) + " are left out") != std::string::npos);
    // The step end is still there, at the report's step.
    double last = 0;
    for (const json& e : of_phase(trace, "X")) last = std::max(last, end_us(e));
    CHECK(last == doctest::Approx(*r.time.step * 1e6).epsilon(1e-9));
}
