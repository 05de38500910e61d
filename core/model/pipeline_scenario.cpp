#include "core/model/pipeline_scenario.hpp"

#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/params.hpp"

namespace shardscope {

PipelineSpec pipeline_spec_for(const Scenario& s) { return scenario_pipeline_spec(s); }

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
