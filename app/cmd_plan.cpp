// `shardscope plan --config FILE [--top K] [--objective step|mfu|memory] [--format json|text|csv]
//                  [--per-mesh] [--no-fold] [--all-orders] [--tp-in-node] [--no-pp] [--zero-max-1]
//                  [--threads N]`:
// every valid layout of the scenario's model on its cluster, ranked (core/planner/planner.hpp). The scenario's
// own layout is only the starting point: the model, cluster, global batch and precision are what
// count. --per-mesh keeps the best row of each distinct mesh; --no-fold lists near-identical layouts (another
// interleaving depth, ZeRO stage or dp split within 0.1%) as rows of their own instead of under the row
// they repeat. Exit 0 with the ranking on stdout; 2
// with the reason on stderr for bad arguments or a scenario file that cannot be read or is rejected.

#include "app/cli.hpp"
#include "app/command_input.hpp"
#include "app/commands.hpp"
#include "core/export/table_csv.hpp"
#include "core/planner/planner.hpp"
#include "core/scenario/units.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <iostream>
#include <sstream>

namespace {

using namespace shardscope;

// `text` as a whole number in [lo, hi], or nothing.
std::optional<int> whole_number(const std::string& text, long lo, long hi) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n < lo || n > hi) return std::nullopt;
    return static_cast<int>(n);
}

// A flag's whole number into `out` when the flag was given; false after saying "plan: RULE, got 'TEXT'".
bool set_whole(const std::string& text, long lo, long hi, const char* rule, int& out) {
    if (text.empty()) return true;
    const auto n = whole_number(text, lo, hi);
    if (!n) {
        std::cerr << "plan: " << rule << ", got '" << text << "'\n";
        return false;
    }
    out = *n;
    return true;
}

constexpr const char* kUsage =
    "usage: shardscope plan --config FILE [--model FILE [--seq-len N]] [--top K] [--objective step|mfu|memory]\n"
    "                       [--format json|text|csv]\n"
    "                       [--per-mesh] [--no-fold] [--all-orders] [--tp-in-node] [--no-pp] [--zero-max-1]\n"
    "                       [--threads N]\n"
    "  Ranks every layout (tp, cp, pp, dp_shard, dp_replicate, ep, ZeRO stage, micro-batch, schedule,\n"
    "  recompute) of the scenario's model on its cluster; the scenario's own layout is only a start.\n"
    "  --config FILE: the scenario (- reads standard input), --model FILE and --seq-len N as for report,\n"
    "  --top K: rows to print (10), --objective: step (time per step, the default), mfu or memory (GiB\n"
    "  per GPU), --format csv: one row per layout, --per-mesh: the best row of each distinct mesh only,\n"
    "  --no-fold: list near-identical layouts (within 0.1%) as rows of their own, --all-orders: try every\n"
    "  order of the mesh dims (about 50 times the layouts), --tp-in-node: tensor parallel within a node\n"
    "  only, --no-pp: no pipeline parallel, --zero-max-1: ZeRO stage 0 or 1 only, --threads N: search\n"
    "  threads (0, the default: one per core; the ranking is the same for any count)";

nlohmann::json entry_json(const PlanEntry& e, int rank) {
    const ParallelSpec& p = e.scenario.parallel;
    const TrainingSpec& t = e.scenario.training;
    nlohmann::json order = nlohmann::json::array();
    for (Dim d : p.order) order.push_back(std::string(to_string(d)));
    return {{"rank", rank},
            {"layout", describe_layout(e.scenario)},
            {"parallel",
             {{"tp", p.tp}, {"cp", p.cp}, {"pp", p.pp}, {"dp_shard", p.dp_shard}, {"dp_replicate", p.dp_replicate},
              {"ep", p.ep}, {"zero", p.zero}, {"order", order},
              {"embedding_in_pipeline_split", p.embedding_in_pipeline_split},
              {"loss_in_pipeline_split", p.loss_in_pipeline_split}}},
            {"training",
             {{"micro_batch", t.micro_batch}, {"schedule", std::string(to_string(t.schedule))},
              {"virtual_stages", t.virtual_stages}, {"recompute", std::string(to_string(t.recompute))},
              {"offload", std::string(to_string(t.offload))}}},
            {"memory_bytes", e.memory_bytes},
            {"headroom_bytes", e.headroom_bytes},
            {"time_s", {{"step", e.step_s}, {"compute", e.compute_s}, {"exposed_comm", e.exposed_comm_s}, {"bubble", e.bubble_s}}},
            {"mfu", e.mfu_known ? nlohmann::json(e.mfu) : nlohmann::json(nullptr)},
            {"tokens_per_s", e.tokens_per_s},
            // Everything the row priced, ready for `shardscope report --config`.
            {"scenario", nlohmann::json::parse(scenario_to_json(e.scenario))}};
}

std::string plan_json(const PlanResult& r) {
    nlohmann::json j;
    j["schema"] = "shardscope.plan/1";
    j["objective"] = std::string(to_string(r.objective));
    j["stats"] = {{"layouts", r.stats.layouts},         {"candidates", r.stats.candidates},
                  {"pruned_memory", r.stats.pruned_memory}, {"pruned_time", r.stats.pruned_time},
                  {"costed", r.stats.costed},           {"fitting", r.stats.fitting},
                  {"seconds", r.stats.seconds},         {"candidates_per_s", r.stats.candidates_per_second()}};
    j["ranking"] = nlohmann::json::array();
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        nlohmann::json e = entry_json(r.ranked[i], static_cast<int>(i) + 1);
        if (i > 0) e["why_below_best"] = why_ranked_below(r.ranked.front(), r.ranked[i], r.objective);
        e["also"] = nlohmann::json::array();
        for (const PlanVariant& v : r.ranked[i].also)
            e["also"].push_back({{"layout", describe_layout(v.scenario)},
                                 {"differs", variant_knobs(r.ranked[i].scenario, v.scenario)},
                                 {"step_s", v.step_s},
                                 {"memory_bytes", v.memory_bytes}});
        j["ranking"].push_back(std::move(e));
    }
    j["notes"] = r.notes;
    return j.dump(2) + "\n";
}

std::string plan_text(const PlanResult& r) {
    std::ostringstream os;
    const PlanStats& s = r.stats;
    os << "ranked by " << to_string(r.objective) << ": costed " << s.costed << " of " << s.candidates
       << " candidates (" << s.layouts << " meshes; " << s.pruned_memory << " cannot fit, " << s.pruned_time
       << " cannot beat the top " << r.ranked.size() << ") in " << format_seconds(s.seconds) << " ("
       << format_count(s.candidates_per_second()) << " candidates/s)\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%4s  %-11s %-8s %-11s %-11s  %s\n", "#", "step", "MFU", "memory/GPU", "headroom",
                  "layout");
    os << line;
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        const PlanEntry& e = r.ranked[i];
        std::snprintf(line, sizeof line, "%4zu  %-11s %-8s %-11s %-11s  %s\n", i + 1, format_seconds(e.step_s).c_str(),
                      format_percent_or_na(e.mfu, e.mfu_known).c_str(), format_memory(e.memory_bytes).c_str(),
                      format_memory(e.headroom_bytes).c_str(), describe_layout(e.scenario).c_str());
        os << line;
        if (!e.also.empty()) os << "        " << describe_variants(e) << "\n";
    }
    if (r.ranked.size() > 1)
        os << "\nwhy #2 loses: " << why_ranked_below(r.ranked[0], r.ranked[1], r.objective) << "\n";
    for (const std::string& n : r.notes) os << "note: " << n << "\n";
    return os.str();
}

int run_plan(const std::vector<std::string>& args) {
    std::string config, format = "text", top, objective, threads;
    shardscope::app::ModelFlags model_flags;
    PlanOptions options;
    bool no_fold = false;
    CLI::App parser;
    shardscope::app::configure_parser(parser);
    parser.add_option("--config", config);
    parser.add_option("--format", format);
    parser.add_option("--top", top);
    parser.add_option("--objective", objective);
    parser.add_option("--threads", threads);
    parser.add_flag("--all-orders", options.all_orders);
    parser.add_flag("--tp-in-node", options.filters.tp_within_node);
    parser.add_flag("--per-mesh", options.one_per_mesh);
    parser.add_flag("--no-fold", no_fold);
    parser.add_flag("--no-pp", options.filters.no_pp);
    parser.add_flag("--zero-max-1", options.filters.zero_at_most_1);
    shardscope::app::add_model_flags(parser, model_flags);
    if (const auto exit = shardscope::app::parse_arguments(parser, args, "plan", kUsage)) return *exit;
    if (no_fold) options.fold = false;
    if (!set_whole(top, 1, 10000, "--top must be a whole number from 1 to 10000", options.top_k)) return 2;
    if (!objective.empty()) {
        const auto o = plan_objective_from_string(objective);
        if (!o) {
            std::cerr << "plan: --objective must be step, mfu or memory, got '" << objective << "'\n";
            return 2;
        }
        options.objective = *o;
    }
    // 0: one per hardware thread (the default). The ranking is the same for any count.
    if (!set_whole(threads, 0, 1024, "--threads must be a whole number from 0 (every core) to 1024", options.threads))
        return 2;
    std::string model_error;
    const auto model = shardscope::app::model_argument(model_flags, model_error, config == "-");
    if (!model) {
        std::cerr << "plan: " << model_error << "\n";
        return 2;
    }
    int exit_code = 0;
    // CSV is the plan's own third format; the scenario is read as for text.
    const bool csv = format == "csv";
    if (!csv && format != "json" && format != "text") {
        std::cerr << "plan: --format must be json, text or csv, got '" << format << "'\n";
        return 2;
    }
    const auto scenario = shardscope::app::scenario_argument("plan", config, csv ? "text" : format, kUsage, exit_code, *model);
    if (!scenario) return exit_code;
    const PlanResult result = plan_layouts(*scenario, options);
    std::cout << (csv ? plan_csv(result.ranked) : format == "json" ? plan_json(result) : plan_text(result));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(plan, "rank every layout of a scenario's model on its cluster", &run_plan);
