#include "core/model/fit_advisor.hpp"

#include "core/model/cost_model.hpp"
#include "core/model/memory.hpp"
#include "core/model/op_recompute.hpp"
#include "core/model/params.hpp"

#include <algorithm>
#include <cstdint>

namespace shardscope {

namespace {

// The knobs in the order of what they cost (see the header); a candidate picks one option per knob.
enum Knob { kSchedule, kZero, kMicroBatch, kRecompute, kTp, kPp, kKnobCount };
constexpr const char* kKnobNames[kKnobCount] = {"schedule", "zero", "micro_batch", "recompute", "tp", "pp"};

// Option 0 of every knob is "leave it as it is".
struct KnobOptions {
    std::vector<Schedule> schedule;
    std::vector<int> zero;
    std::vector<int64_t> micro_batch;
    std::vector<TrainingSpec> recompute;  // the recompute and, on the fused stack, its modules
    std::vector<int64_t> tp_factor;  // multiplies tp, taken from the data-parallel dims
    std::vector<int64_t> pp_factor;
};

int64_t data_parallel(const ParallelSpec& p) { return p.dp_shard * p.dp_replicate; }

// The layout with the GPUs it leaves over named as dp_replicate.
Scenario with_leftover_as_replicas(Scenario s) {
    const int64_t product = std::max<int64_t>(1, s.parallel.product());
    const int64_t world = s.cluster.gpu_count();
    if (world > product && world % product == 0) s.parallel.dp_replicate *= world / product;
    return s;
}

// Divides the data-parallel dims by `factor` (a power of two), dp_replicate first; false when they
// do not have it.
bool take_from_data_parallel(ParallelSpec& p, int64_t factor) {
    for (; factor > 1; factor /= 2) {
        if (p.dp_replicate % 2 == 0) p.dp_replicate /= 2;
        else if (p.dp_shard % 2 == 0) p.dp_shard /= 2;
        else return false;
    }
    return true;
}

// Powers of two (1 first) that the data-parallel dims can give and that keep dim * factor <= limit.
std::vector<int64_t> doublings(int64_t dim, int64_t dp, int64_t limit) {
    std::vector<int64_t> out{1};
    for (int64_t f = 2; dp % f == 0 && dim * f <= limit; f *= 2) out.push_back(f);
    return out;
}

// The scenario's recompute first, then what saves more: selective (on the fused stack with its modules
// as they are, then with every module that saves memory in this model), full.
std::vector<TrainingSpec> recompute_options(const Scenario& s) {
    const TrainingSpec& now = s.training;
    std::vector<TrainingSpec> out{now};
    const auto add = [&](Recompute r, const RecomputeModules& mods) {
        TrainingSpec t = now;
        t.recompute = r;
        t.recompute_modules = mods;
        for (const TrainingSpec& o : out)
            if (o.recompute == t.recompute && recompute_text(o) == recompute_text(t)) return;
        out.push_back(t);
    };
    if (now.recompute == Recompute::none) add(Recompute::selective, now.recompute_modules);
    if (now.recompute != Recompute::full && now.fused_kernels) {
        // The attention core saves memory only where the scores are stored (eager attention).
        RecomputeModules every = now.recompute_modules;
        every.core_attn = every.core_attn || now.attention == AttentionKernel::eager;
        every.layernorm = true;
        every.mla_up_proj = s.model.is_mla();
        every.moe_act = s.model.is_moe();
        add(Recompute::selective, every);
    }
    if (now.recompute != Recompute::full) add(Recompute::full, now.recompute_modules);
    return out;
}

KnobOptions options_for(const Scenario& s) {
    const ParallelSpec& p = s.parallel;
    KnobOptions o;
    o.schedule.push_back(s.training.schedule);
    // 1F1B holds at most p micro-batches a stage; the schedules that hold more (or, DualPipe, two
    // parameter copies) may switch to it. Interleaving holds less than p already.
    const Schedule now = s.training.schedule;
    if (p.pp > 1 && now != Schedule::one_f_one_b && now != Schedule::interleaved_1f1b && now != Schedule::zb_h1)
        o.schedule.push_back(Schedule::one_f_one_b);
    o.zero.push_back(p.zero);
    // ZeRO needs somebody to shard with: a data-parallel or CP group.
    if (data_parallel(p) * p.cp > 1)
        for (int z = p.zero + 1; z <= 3; ++z) o.zero.push_back(z);
    o.micro_batch.push_back(s.training.micro_batch);
    for (int64_t b = s.training.micro_batch; b > 1;) {
        b = b % 2 == 0 ? b / 2 : 1;
        o.micro_batch.push_back(b);
    }
    o.recompute = recompute_options(s);
    const bool arch = s.model.has_architecture();
    const int64_t dp = data_parallel(p);
    // A count-only model has no heads or layers to bound TP and PP; 64 is past any published TP.
    o.tp_factor = doublings(p.tp, dp, arch ? s.model.heads : 64);
    o.pp_factor = doublings(p.pp, dp, arch ? s.model.layers : 1024);
    return o;
}

struct Candidate {
    Scenario scenario;
    std::vector<KnobChange> changes;
};

// Builds the candidate for one option index per knob; false when the dims cannot pay for it.
bool make_candidate(const Scenario& s, const KnobOptions& o, const int (&pick)[kKnobCount], Candidate& out) {
    Scenario c = s;
    std::vector<KnobChange> changes;
    c.training.schedule = o.schedule[static_cast<size_t>(pick[kSchedule])];
    if (pick[kSchedule] != 0) c.training.virtual_stages = 1;
    c.training.micro_batch = o.micro_batch[static_cast<size_t>(pick[kMicroBatch])];
    const TrainingSpec& recompute = o.recompute[static_cast<size_t>(pick[kRecompute])];
    c.training.recompute = recompute.recompute;
    c.training.recompute_modules = recompute.recompute_modules;
    const int64_t tp_f = o.tp_factor[static_cast<size_t>(pick[kTp])];
    const int64_t pp_f = o.pp_factor[static_cast<size_t>(pick[kPp])];
    if (!take_from_data_parallel(c.parallel, tp_f * pp_f)) return false;
    c.parallel.tp *= tp_f;
    c.parallel.pp *= pp_f;
    // ZeRO last: it may turn the replicas the other knobs left into shards.
    if (pick[kZero] != 0) c = with_zero_stage(c, o.zero[static_cast<size_t>(pick[kZero])]);
    else if (c.parallel.zero == 0 && c.parallel.dp_shard > 1) return false;

    if (pick[kSchedule] != 0)
        changes.push_back({kKnobNames[kSchedule], std::string(to_string(s.training.schedule)),
                           std::string(to_string(c.training.schedule))});
    if (pick[kZero] != 0) changes.push_back({kKnobNames[kZero], std::to_string(s.parallel.zero), std::to_string(c.parallel.zero)});
    if (pick[kMicroBatch] != 0)
        changes.push_back({kKnobNames[kMicroBatch], std::to_string(s.training.micro_batch),
                           std::to_string(c.training.micro_batch)});
    if (pick[kRecompute] != 0)
        changes.push_back({kKnobNames[kRecompute], recompute_text(s.training), recompute_text(c.training)});
    if (pick[kTp] != 0) changes.push_back({kKnobNames[kTp], std::to_string(s.parallel.tp), std::to_string(c.parallel.tp)});
    if (pick[kPp] != 0) changes.push_back({kKnobNames[kPp], std::to_string(s.parallel.pp), std::to_string(c.parallel.pp)});
    // The data-parallel dims pay for TP and PP and turn into shards under ZeRO: name them too, so the
    // advice says every field it changes.
    for (KnobChange& moved : data_parallel_changes(s, c)) changes.push_back(std::move(moved));
    out.scenario = std::move(c);
    out.changes = std::move(changes);
    return true;
}

// Every candidate, grouped by how many knobs it turns: result[k] holds the k-knob candidates.
std::vector<std::vector<Candidate>> candidates_by_knob_count(const Scenario& s) {
    const KnobOptions o = options_for(s);
    const int sizes[kKnobCount] = {static_cast<int>(o.schedule.size()), static_cast<int>(o.zero.size()),
                                   static_cast<int>(o.micro_batch.size()),
                                   static_cast<int>(o.recompute.size()), static_cast<int>(o.tp_factor.size()),
                                   static_cast<int>(o.pp_factor.size())};
    std::vector<std::vector<Candidate>> levels(kKnobCount + 1);
    int pick[kKnobCount] = {};
    // Odometer over every knob's options, the first knob turning fastest: within a level, candidates
    // come in knob order (cheap knobs and small steps first).
    while (true) {
        int turned = 0;
        for (int k = 0; k < kKnobCount; ++k) turned += pick[k] != 0 ? 1 : 0;
        Candidate c;
        if (turned > 0 && make_candidate(s, o, pick, c)) {
            levels[static_cast<size_t>(turned)].push_back(std::move(c));
        }
        int k = 0;
        while (k < kKnobCount && ++pick[k] == sizes[k]) pick[k++] = 0;
        if (k == kKnobCount) break;
    }
    return levels;
}

// A floor under a candidate's most loaded GPU without simulating its pipeline (the slow part of
// build_report): every stage holds at least one micro-batch's activations at its peak (1/v of one
// under interleaving), and nothing else in a stage's memory depends on the schedule's in-flight count.
double memory_floor(const Scenario& c, const ParamCounts& counts) {
    const double inflight = 1.0 / static_cast<double>(std::max<int64_t>(1, c.training.virtual_stages));
    double floor = 0;
    for (int64_t st = 0; st < c.parallel.pp; ++st)
        floor = std::max(floor, stage_memory(c, counts, st, inflight).bytes.total());
    return floor;
}

}  // namespace

std::string changes_text(const std::vector<KnobChange>& changes) {
    std::string out;
    for (const KnobChange& c : changes) out += (out.empty() ? "" : ", ") + c.text();
    return out;
}

std::string FitAdvice::summary() const { return changes_text(changes); }

std::vector<KnobChange> data_parallel_changes(const Scenario& before, const Scenario& after) {
    std::vector<KnobChange> out;
    for (Dim d : {Dim::dp_shard, Dim::dp_replicate})
        if (after.parallel.factor(d) != before.parallel.factor(d))
            out.push_back({std::string(to_string(d)), std::to_string(before.parallel.factor(d)),
                           std::to_string(after.parallel.factor(d))});
    return out;
}

Scenario with_zero_stage(const Scenario& s, int zero) {
    Scenario c = s;
    ParallelSpec& p = c.parallel;
    p.zero = zero;
    if (zero == 0 && p.dp_shard > 1) {
        // Nothing sharded: every data-parallel rank is a plain replica (DDP).
        p.dp_replicate *= p.dp_shard;
        p.dp_shard = 1;
    } else if (zero > 0 && p.dp_shard == 1 && p.dp_replicate > 1) {
        // Sharding needs a shard group: the replicas become shards.
        p.dp_shard = p.dp_replicate;
        p.dp_replicate = 1;
    }
    return c;
}

namespace {

// Halves `dim` and doubles dp_replicate, keeping the world; false when it is 1 or odd.
bool halve_into_replicas(int64_t& dim, ParallelSpec& p) {
    if (dim < 2 || dim % 2 != 0) return false;
    dim /= 2;
    p.dp_replicate *= 2;
    return true;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// One step toward a layout the model runs, for the rule validate_scenario gave; false when the rule
// is none these knobs can meet.
bool ease_rule(Scenario& c, const std::string& rule) {
    ParallelSpec& p = c.parallel;
    TrainingSpec& t = c.training;
    if (starts_with(rule, "training.virtual_stages:") && rule.find("model chunks exceeds layers") != std::string::npos) {
        const int64_t units = c.model.layers + (p.embedding_in_pipeline_split ? 1 : 0) + (p.loss_in_pipeline_split ? 1 : 0);
        const int64_t most = units / std::max<int64_t>(1, p.pp);
        if (most >= 2) {
            t.virtual_stages = std::min(t.virtual_stages - 1, most);
        } else {
            t.schedule = Schedule::one_f_one_b;
            t.virtual_stages = 1;
        }
        return true;
    }
    if (starts_with(rule, "parallel.pp:")) {
        if (!halve_into_replicas(p.pp, p)) return false;
        if (p.pp == 1) {  // no pipeline left: its schedule and split go with it
            t.schedule = Schedule::one_f_one_b;
            t.virtual_stages = 1;
            p.first_stage_layers = p.last_stage_layers = 0;
        }
        return true;
    }
    if (starts_with(rule, "parallel.first_stage_layers:") || starts_with(rule, "parallel.last_stage_layers:")) {
        p.first_stage_layers = p.last_stage_layers = 0;  // an uneven split of the old model's layers
        return true;
    }
    if (starts_with(rule, "parallel.tp:")) return halve_into_replicas(p.tp, p);
    if (starts_with(rule, "parallel.cp:")) return halve_into_replicas(p.cp, p);
    if (starts_with(rule, "parallel.ep:")) {
        if (p.ep < 2) return false;
        p.ep = c.model.is_moe() && p.ep % 2 == 0 ? p.ep / 2 : 1;  // ep borrows its ranks: nothing to give back
        return true;
    }
    return false;
}

// The fields carry_layout_to_model may move, each named once as it went from `before` to `after`.
std::vector<KnobChange> layout_changes(const Scenario& before, const Scenario& after) {
    std::vector<KnobChange> out;
    const ParallelSpec &a = before.parallel, &b = after.parallel;
    const auto add = [&](const char* knob, int64_t from, int64_t to) {
        if (from != to) out.push_back({knob, std::to_string(from), std::to_string(to)});
    };
    if (before.training.schedule != after.training.schedule)
        out.push_back({"schedule", std::string(to_string(before.training.schedule)), std::string(to_string(after.training.schedule))});
    add("virtual_stages", before.training.virtual_stages, after.training.virtual_stages);
    add("pp", a.pp, b.pp);
    add("first_stage_layers", a.first_stage_layers, b.first_stage_layers);
    add("last_stage_layers", a.last_stage_layers, b.last_stage_layers);
    add("tp", a.tp, b.tp);
    add("cp", a.cp, b.cp);
    add("ep", a.ep, b.ep);
    for (KnobChange& moved : data_parallel_changes(before, after)) out.push_back(std::move(moved));
    return out;
}

}  // namespace

CarriedLayout carry_layout_to_model(const Scenario& s) {
    CarriedLayout out;
    out.scenario = s;
    // Each step lowers one knob; a layout has fewer than 64 halvings in it.
    for (int step = 0; step < 64; ++step) {
        out.rule = validate_scenario(out.scenario);
        if (out.rule.empty() || !ease_rule(out.scenario, out.rule)) break;
    }
    out.changes = layout_changes(s, out.scenario);
    return out;
}

FitAdvice advise_fit(const Scenario& s) {
    FitAdvice advice;
    const Report base = build_report(s);
    advice.needed = !base.fits;
    advice.scenario = s;
    advice.total_bytes = base.memory.total();
    advice.memory = base.memory;
    advice.capacity_bytes = base.gpu_memory_bytes;
    advice.step_s = base.time.step;
    advice.closest_bytes = base.memory.total();
    if (!advice.needed) return advice;

    const ParamCounts counts = count_params(s.model);

    // Leftover GPUs are replicas already (docs/design.md): the fixes may shard or split them like any other.
    const auto levels = candidates_by_knob_count(with_leftover_as_replicas(s));

    // The fastest fitting fix wins, however many knobs it turns (a count-only model has no step
    // time: there the first fitting one in knob order, fewest knobs first).
    const Candidate* best = nullptr;
    Report best_report;
    // `tracks_closest`: the candidate's floor counts toward the lightest try reported when nothing fits.
    const auto consider = [&](const Candidate& c, bool tracks_closest) {
        if (!validate_scenario(c.scenario).empty()) return;
        // The floor screens out what cannot fit without simulating its pipeline, and bounds what
        // the lightest candidate needs when nothing fits.
        const double floor = memory_floor(c.scenario, counts);
        ++advice.candidates_screened;
        if (tracks_closest && floor < advice.closest_bytes) {
            advice.closest_bytes = floor;
            advice.closest_changes = c.changes;
        }
        if (floor > advice.capacity_bytes) return;
        Report r = build_report(c.scenario);
        ++advice.candidates_costed;
        if (!r.fits) return;
        // Fastest wins; without a step time (count-only model) the first in knob order does.
        const bool better = !best || (r.time.step && best_report.time.step && *r.time.step < *best_report.time.step);
        if (better) {
            best = &c;
            best_report = std::move(r);
        }
    };
    for (const auto& level : levels)
        for (const Candidate& c : level) consider(c, true);
    // Last, where nothing fits on the GPUs: the same fixes (and the scenario as it is) with the
    // optimizer in host memory, which trades its state for the host link and the CPU's Adam.
    std::vector<Candidate> offloaded;
    if (!best && s.training.offload == Offload::none) {
        const auto offload = [](Candidate c) {
            c.scenario.training.offload = Offload::optimizer;
            c.changes.push_back({"offload", "none", "optimizer"});
            return c;
        };
        offloaded.push_back(offload(Candidate{s, {}}));
        for (const auto& level : levels)
            for (const Candidate& c : level) offloaded.push_back(offload(c));
    }
    for (const Candidate& c : offloaded) consider(c, false);
    if (best) {
        advice.found = true;
        advice.changes = best->changes;
        advice.scenario = best->scenario;
        advice.total_bytes = best_report.memory.total();
        advice.memory = best_report.memory;
        advice.step_s = best_report.time.step;
    }
    return advice;
}

}  // namespace shardscope
