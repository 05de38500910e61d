#include "core/model/pipeline_scenario.hpp"

#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/params.hpp"

namespace shardscope {

PipelineSpec pipeline_spec_for(const Scenario& s) { return scenario_pipeline_spec(s); }

EditableStageCosts editable_stage_costs(const PipelineSpec& spec) {
    EditableStageCosts out;
    out.per_stage = spec.costs;
    if (out.per_stage.size() == 1) out.per_stage.assign(static_cast<std::size_t>(spec.stages), out.per_stage.front());
    if (out.per_stage.empty()) return out;
    // Schedules that run B and W as one op read only their sum, so halving it changes none of them.
    for (StageCost& cost : out.per_stage)
        if (cost.w == 0) cost = StageCost{cost.f, cost.b / 2, cost.b / 2};
    out.typical = out.per_stage[out.per_stage.size() > 2 ? 1 : 0];
    if (out.typical.total() > 0) {
        out.first_extra = out.per_stage.front().total() / out.typical.total() - 1.0;
        out.last_extra = out.per_stage.back().total() / out.typical.total() - 1.0;
    }
    return out;
}

std::vector<double> activation_bytes_per_stage(const Scenario& s, const PipelineTimeline& timeline) {
    if (!timeline.ok() || !s.model.has_architecture() || timeline.stages < 1 || timeline.stages > s.model.layers)
        return {};
    // The same model cut into the timeline's stage count; only the activation term is read.
    Scenario cut = s;
    cut.parallel.pp = timeline.stages;
    const ParamCounts counts = count_params(s.model);
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(timeline.stages));
    for (int stage = 0; stage < timeline.stages; ++stage) {
        const double inflight = timeline.peak_activation_microbatches[static_cast<std::size_t>(stage)];
        out.push_back(stage_memory(cut, counts, stage, inflight).bytes.activations.value_or(0));
    }
    return out;
}

}  // namespace shardscope
