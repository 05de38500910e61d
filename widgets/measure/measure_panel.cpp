#include "widgets/measure/measure_panel.hpp"

#include "widgets/kit/flow.hpp"

#include "widgets/kit/background_job.hpp"

#include "core/model/hardware.hpp"

#include "core/collectives/collective_figures.hpp"
#include "core/scenario/units.hpp"
#include "widgets/kit/item_rects.hpp"
#include "widgets/kit/plot.hpp"

#include "widgets/shell/file_browser.hpp"

#include <imgui.h>

#include <filesystem>

#include <functional>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace shardscope::ui {

namespace {

constexpr double kCopyBytes = 1024.0 * 1024 * 1024;  // 1 GiB: far past every cache, well inside HBM
const ImVec4 kWarning(1.0f, 0.72f, 0.35f, 1.0f);
const ImVec4 kError(1.0f, 0.45f, 0.4f, 1.0f);
const ImVec4 kGood(0.55f, 0.85f, 0.55f, 1.0f);
// Bounds the actions check before core's sweep rules: beyond them no sweep is meaningful.
constexpr double kMaxSweepFactor = 1024;
constexpr int kMaxSweepCount = 100000;

TextFileWriter& file_writer() {
    static TextFileWriter writer;  // function-local: safe to set from another file's static initializer
    return writer;
}



// Controls wrap in narrow windows (kit flow), two item spacings apart.
void flow_control(float next_width) { flow(next_width, ImGui::GetStyle().ItemSpacing.x * 2.0f); }

[[nodiscard]] float labelled(float widget, const char* label) {
    return widget + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

// A sweep's algorithm as the panel words it: "" (a result's) and "mpi" (a flag's) are MPI's own collective.
[[nodiscard]] std::string algorithm_label(const std::string& name) {
    return name.empty() || name == "mpi" ? "MPI's own" : name;
}

void copy_text(char* dst, std::size_t size, const std::string& text) { std::snprintf(dst, size, "%s", text.c_str()); }

// Powers of ten around [lo, hi], so a log axis starts and ends on a labelled tick.
[[nodiscard]] std::pair<double, double> decade_range(double lo, double hi) {
    lo = std::max(lo, 1e-9);
    hi = std::max(hi, lo * 10);
    return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

void heading(const char* text) {
    ImGui::Spacing();
    ImGui::TextUnformatted(text);
    ImGui::Separator();
}

}  // namespace

void set_measure_file_writer(TextFileWriter writer) { file_writer() = std::move(writer); }

// One background job: a sweep or the single-GPU figures. The worker writes under the mutex; the UI
// reads under it once a frame. The worker is the last member: destroying a job cancels it and waits
// for the thread before the figures it writes go.
struct MeasurePanel::Job {
    std::mutex mutex;
    std::vector<TimingRow> rows;
    std::size_t done = 0, total = 0;
    std::optional<MeasureResult> sweep;
    std::optional<SingleGpuResult> single;
    std::optional<BackgroundJob> worker;
};

MeasurePanel::MeasurePanel(Placement placement, bool open) : Panel("measure", "Measure", placement, open) {
    declare_actions();
}

MeasurePanel::~MeasurePanel() = default;  // ~Job cancels and joins

// --- Backend and jobs ----------------------------------------------------------------------------

void MeasurePanel::probe_backend() {
    if (running()) return;  // the worker holds the measurer; ask again when it is done
    backend_names_ = measurer_names();
    measurer_.reset();
    status_ = BackendStatus{};
    status_.message = no_backend_message();
    for (const std::string& name : backend_names_) {
        if (!backend_choice_.empty() && name != backend_choice_) continue;
        std::shared_ptr<Measurer> m(make_measurer(name));
        if (!m) continue;
        BackendStatus s = m->status();
        // Without a choice, the first backend that can measure; else the first one, to say what it lacks.
        if (!measurer_ || (s.ready && !status_.ready)) {
            measurer_ = m;
            status_ = s;
        }
        if (status_.ready) break;
    }
    if (spec_.algorithm && !status_.animator_algorithms) {
        spec_.algorithm.reset();
        spec_.ranks_per_node = 0;
    }
    probed_ = true;
}

void MeasurePanel::choose_backend(const std::string& name) {
    backend_choice_ = name;
    probe_backend();
}

void MeasurePanel::drop_algorithm_of_other_op() {
    if (!spec_.algorithm) return;
    const auto allowed = step_algorithms_for(spec_.op);
    if (std::find(allowed.begin(), allowed.end(), *spec_.algorithm) != allowed.end()) return;
    // The node size goes with the algorithm: left behind it would make the sweep invalid, with no
    // field on screen to clear it.
    spec_.algorithm.reset();
    spec_.ranks_per_node = 0;
}

std::string MeasurePanel::rows_caption() const {
    const bool shown = running() || last_sweep_;
    if (!shown) return "Sweep (nccl-tests' columns)";
    const SweepSpec& s = job_spec_;
    const std::string algorithm = cpu_ranks() ? ", " + algorithm_label(measure_algorithm_name(s.algorithm)) : "";
    return std::string(running() ? "Sweep running: " : "Last sweep: ") + std::string(measure_op_name(s.op)) + algorithm +
           ", " + std::to_string(last_sweep_ && !running() ? last_sweep_->ranks : sweep_ranks()) + " " + status_.unit +
           "s (nccl-tests' columns)";
}

std::string MeasurePanel::sweep_problem() const {
    // A size field whose text is no size keeps the last size it read: say so rather than sweep that.
    for (const auto& [flag, text] : {std::pair{"min (-b)", min_text_}, std::pair{"max (-e)", max_text_}})
        if (!parse_byte_size(text))
            return std::string(flag) + ": '" + text + "' is not a size (a whole number of bytes, or with a unit: 64KiB, 1GiB)";
    if (std::string e = validate_sweep(spec_); !e.empty()) return e;
    if (!cpu_ranks()) return "";
    return check_sweep_schedule(spec_, sweep_ranks(), spec_.ranks_per_node > 0 ? spec_.ranks_per_node : sweep_ranks());
}

int MeasurePanel::sweep_ranks() const noexcept {
    if (cpu_ranks()) return spec_.gpus > 0 ? spec_.gpus : status_.devices;
    return spec_.gpus > 0 ? std::min(spec_.gpus, status_.devices) : status_.devices;
}

bool MeasurePanel::running() const noexcept { return job_ && !job_->worker->finished(); }

std::string MeasurePanel::start(const AppState& state) {
    if (!probed_) probe_backend();
    if (running()) return "a measurement is already running";
    if (!measurer_) return no_backend_message();
    if (!status_.ready) return status_.message;
    // Refused before the last sweep is put aside, so a bad setting loses nothing measured.
    if (std::string e = sweep_problem(); !e.empty()) return e;
    const bool one_gpu = !cpu_ranks() && (status_.devices < 2 || spec_.gpus == 1);
    const std::vector<GemmShape> shapes = model_gemm_shapes(state.scenario());

    job_.reset();
    if (last_sweep_ && !last_sweep_->rows.empty()) earlier_sweep_ = std::move(last_sweep_);
    last_sweep_.reset();
    last_single_.reset();
    last_error_.clear();
    notice_.clear();
    calibration_stale_ = true;
    job_spec_ = spec_;
    job_on_cpu_ = cpu_ranks();
    job_ = std::make_unique<Job>();
    Job* job = job_.get();
    job->worker.emplace([job, measurer = measurer_, spec = spec_, one_gpu, shapes](const std::atomic<bool>& cancel) {
        const MeasureProgress progress = [job, &cancel](std::size_t done, std::size_t total, const TimingRow* row) {
            const std::lock_guard<std::mutex> lock(job->mutex);
            if (row) job->rows.push_back(*row);
            job->done = done;
            job->total = total;
            return !cancel.load();
        };
        if (one_gpu) {
            SingleGpuResult r = measurer->measure_single_gpu(shapes, kCopyBytes, spec.iters, spec.warmup, progress);
            const std::lock_guard<std::mutex> lock(job->mutex);
            job->single = std::move(r);
        } else {
            MeasureResult r = measurer->measure(spec, progress);
            const std::lock_guard<std::mutex> lock(job->mutex);
            job->sweep = std::move(r);
        }
    });
    return "";
}

void MeasurePanel::cancel() {
    if (job_) job_->worker->cancel();
}

void MeasurePanel::wait() {
    if (job_) job_->worker->wait();
    collect_finished_job();
}

void MeasurePanel::collect_finished_job() {
    if (!job_ || !job_->worker->finished()) return;
    {
        const std::lock_guard<std::mutex> lock(job_->mutex);
        last_done_ = job_->done;
        last_total_ = job_->total;
        last_sweep_ = std::move(job_->sweep);
        last_single_ = std::move(job_->single);
    }
    last_error_.clear();
    if (last_sweep_ && !last_sweep_->error.empty()) last_error_ = last_sweep_->error;
    if (last_sweep_ && last_sweep_->cancelled)
        last_error_ = "cancelled after " + std::to_string(last_sweep_->rows.size()) + " of " +
                      std::to_string(last_total_) + " sizes";
    if (last_single_ && !last_single_->error.empty()) last_error_ = last_single_->error;
    job_.reset();
    calibration_stale_ = true;
}

void MeasurePanel::recalibrate(const AppState& state) {
    if (!calibration_stale_ && calibrated_version_ == state.version()) return;
    calibration_stale_ = false;
    calibrated_version_ = state.version();
    std::vector<MeasureResult> sweeps;
    if (last_sweep_ && !last_sweep_->rows.empty()) sweeps.push_back(*last_sweep_);
    const SingleGpuResult* single = last_single_ ? &*last_single_ : nullptr;
    calibration_ = calibrate(sweeps, single);
    const bool something = (calibration_.intra && calibration_.intra->ok) || calibration_.hbm_bytes_per_s ||
                           calibration_.best_gemm_flops_per_s;
    if (!something) {
        calibrated_.reset();
        cluster_json_.clear();
        return;
    }
    calibrated_ = calibrated_cluster(state.scenario().cluster, calibration_);
    cluster_json_ = cluster_preset_json(*calibrated_, calibration_source(sweeps, single));
}

// --- Actions -------------------------------------------------------------------------------------

void MeasurePanel::declare_actions() {
    std::vector<std::string> ops;
    for (Collective c : measurable_ops()) ops.emplace_back(measure_op_name(c));
    for (Collective c : measurable_ops()) ops.emplace_back(to_string(c));  // "all-reduce" reads as well
    actions_.choice("op", "the collective to time", ops, [this](AppState&, const ActionValue& v) {
        collect_finished_job();
        spec_.op = *measure_op_from_string(v.text);
        drop_algorithm_of_other_op();
        return std::string();
    });
    actions_.choice("backend", "what to measure on: GPUs (cuda-nccl) or CPU ranks over MPI (cpu-mpi)",
                    {"cuda-nccl", kCpuMeasureBackend}, [this](AppState&, const ActionValue& v) {
                        collect_finished_job();
                        if (running()) return std::string("a measurement is running");
                        const auto names = measurer_names();
                        if (std::find(names.begin(), names.end(), v.text) == names.end())
                            return "backend: this build has no " + v.text + " backend";
                        choose_backend(v.text);
                        return std::string();
                    });
    actions_.choice("algorithm", "CPU ranks: MPI's own collective (mpi) or the animator's algorithm, step for step",
                    {"mpi", "ring", "tree", "pairwise", "double_binary_tree", "hierarchical"},
                    [this](AppState&, const ActionValue& v) {
                        collect_finished_job();
                        if (!probed_) probe_backend();
                        if (!status_.animator_algorithms && v.text != "mpi")
                            return "algorithm: the " + (measurer_ ? measurer_->name() : std::string("GPU")) +
                                   " backend times the library's own choice; choose backend cpu-mpi first";
                        SweepSpec next = spec_;
                        (void)measure_algorithm_from_string(v.text, next.algorithm);
                        if (next.algorithm != StepAlgorithm::hierarchical) next.ranks_per_node = 0;
                        if (std::string e = validate_sweep(next); !e.empty()) return e;
                        spec_ = next;
                        return std::string();
                    });
    // A sweep field changes only when the whole sweep stays valid (nccl-tests' rules, core's messages).
    const auto set_sweep = [this](const std::function<void(SweepSpec&)>& edit) {
        collect_finished_job();
        SweepSpec next = spec_;
        edit(next);
        if (std::string e = validate_sweep(next); !e.empty()) return e;
        spec_ = next;
        return std::string();
    };
    for (const bool is_min : {true, false}) {
        actions_.bytes(is_min ? "min" : "max", is_min ? "smallest message (-b)" : "largest message (-e)", 1,
                       kMaxSweepBytes, [this, set_sweep, is_min](AppState&, const ActionValue& v) {
                           std::string e = set_sweep([&](SweepSpec& s) { (is_min ? s.min_bytes : s.max_bytes) = v.number; });
                           if (e.empty()) copy_text(is_min ? min_text_ : max_text_, sizeof min_text_, v.text);
                           return e;
                       });
    }
    actions_.number("factor", "each size is the previous one times this (-f)", 0, kMaxSweepFactor,
                    [set_sweep](AppState&, const ActionValue& v) { return set_sweep([&](SweepSpec& s) { s.factor = v.number; }); });
    const struct {
        const char* name;
        const char* help;
        int lowest;
        int SweepSpec::*field;
    } counts[] = {{"iters", "timed iterations per size (-n)", 1, &SweepSpec::iters},
                  {"warmup", "untimed iterations first (-w)", 0, &SweepSpec::warmup},
                  {"gpus", "GPUs (-g; 0: every GPU found), or CPU ranks (mpirun -np; 0: 4)", 0, &SweepSpec::gpus},
                  {"ranks_per_node", "the hierarchical algorithm's node size (0: the ranks' own nodes)", 0,
                   &SweepSpec::ranks_per_node}};
    for (const auto& c : counts)
        actions_.integer(c.name, c.help, c.lowest, kMaxSweepCount, [set_sweep, field = c.field](AppState&, const ActionValue& v) {
            return set_sweep([&](SweepSpec& s) { s.*field = static_cast<int>(v.integer); });
        });
    actions_.on_off("check", "check every result against the expected sum (--check)", [set_sweep](AppState&, const ActionValue& v) {
        return set_sweep([&](SweepSpec& s) { s.check = v.on; });
    });
    actions_.trigger("run", "start the sweep", [this](AppState& state, const ActionValue&) {
        collect_finished_job();
        return start(state);
    });
    actions_.trigger("wait", "wait for the running sweep to end (screenshots, lessons)", [this](AppState&, const ActionValue&) {
        wait();
        return std::string();
    });
    actions_.trigger("cancel", "stop the sweep", [this](AppState&, const ActionValue&) {
        cancel();
        return std::string();
    });
    actions_.trigger("refresh", "look for a backend again", [this](AppState&, const ActionValue&) {
        collect_finished_job();
        probe_backend();
        return std::string();
    });
    actions_.trigger("apply", "use the measured links in the scenario", [this](AppState& state, const ActionValue&) {
        collect_finished_job();
        recalibrate(state);
        if (!calibrated_) return std::string("nothing measured yet to calibrate the cluster with");
        Scenario next = state.scenario();
        const LinkSpec before = next.cluster.intra_node;
        next.cluster = *calibrated_;
        if (std::string e = state.try_apply(next); !e.empty()) return e;
        const LinkSpec& after = next.cluster.intra_node;
        notice_ = "The scenario now uses the measured figures: intra-node link " + format_bandwidth(before.bandwidth_gbps * 1e9) +
                  ", " + format_seconds(before.latency_us * 1e-6) + " -> " + format_bandwidth(after.bandwidth_gbps * 1e9) +
                  ", " + format_seconds(after.latency_us * 1e-6) + " (cluster \"" + next.cluster.name +
                  "\"). Every panel now prices with them; Edit > Undo takes them back.";
        state.ui.status = "The scenario uses the measured links (cluster \"" + next.cluster.name + "\"; Ctrl+Z undoes it)";
        return std::string();
    });
    actions_.text("save", "a file path", "write the measured cluster preset there", [this](AppState& state, const ActionValue& v) {
        collect_finished_job();
        recalibrate(state);
        if (!calibrated_) return std::string("nothing measured yet to calibrate the cluster with");
        if (v.text.empty()) return std::string("give a path");
        if (!file_writer()) return std::string("this build cannot write files from the panel");
        // A name alone lands where the file dialogs look, as a name typed there does; said in full.
        const char* home = std::getenv("HOME");
        const std::string dir = state.ui.file_dialog_dir.empty() ? std::filesystem::current_path().string()
                                                                 : state.ui.file_dialog_dir;
        const std::string path = resolve_typed_path(dir, v.text, home ? home : "");
        if (std::string e = file_writer()(path, cluster_json_); !e.empty()) return e;
        copy_text(path_text_, sizeof path_text_, path);
        notice_ = "Saved " + path + " (load it as a cluster preset).";
        state.ui.status = "Saved the measured cluster preset to " + path;
        return std::string();
    });
}

// --- Records -------------------------------------------------------------------------------------

MeasureChartRecord MeasurePanel::make_chart(const AppState& state) const {
    MeasureChartRecord c;
    const std::vector<TimingRow>& rows = records_.rows;
    const bool measured = last_sweep_ || running();
    c.op = last_sweep_ ? last_sweep_->op : running() ? job_spec_.op : spec_.op;
    // The GPUs (or CPU ranks) a sweep would use here, else one node of the scenario's cluster.
    const int local = sweep_ranks();
    c.ranks = last_sweep_ && last_sweep_->ranks >= 2 ? last_sweep_->ranks
              : local >= 2                            ? local
                                                      : static_cast<int>(std::max<int64_t>(2, state.scenario().cluster.gpus_per_node));
    const SweepSpec& sizes_of = measured ? job_spec_ : spec_;
    if (last_sweep_ && !rows.empty() && !running()) {
        for (const TimingRow& r : rows) c.bytes.push_back(r.bytes);
    } else {
        for (const SweepSize& s : sweep_sizes(sizes_of, c.ranks)) c.bytes.push_back(s.bytes);
    }
    c.predicted_s = predicted_times(c.op, c.ranks, c.bytes, Link::from(state.scenario().cluster.intra_node));
    for (const TimingRow& r : rows) c.measured_s.push_back(r.time_s);
    if (calibration_.intra && calibration_.intra->ok && !rows.empty())
        for (double b : c.bytes) c.fitted_s.push_back(fitted_time(*calibration_.intra, c.op, b, c.ranks));
    if (earlier_sweep_ && earlier_sweep_->op == c.op && earlier_sweep_->ranks == c.ranks) {
        for (const TimingRow& r : earlier_sweep_->rows) {
            c.earlier_bytes.push_back(r.bytes);
            c.earlier_s.push_back(r.time_s);
        }
        const std::string& a = earlier_sweep_->algorithm;
        c.earlier_label = "earlier: " + (a.empty() && earlier_sweep_->backend != kCpuMeasureBackend ? earlier_sweep_->backend
                                                                                                    : algorithm_label(a));
    }
    c.caption = std::string(measure_op_name(c.op)) + " on " + std::to_string(c.ranks) + " " + status_.unit + "s";
    // The algorithm of the sweep drawn ("" in a result is the library's own), else of the one to run.
    if (cpu_ranks()) {
        const std::string a = last_sweep_ ? last_sweep_->algorithm : measure_algorithm_name(spec_.algorithm);
        c.caption += " (" + algorithm_label(a) + ")";
    }
    return c;
}

void MeasurePanel::rebuild_records(const AppState& state) {
    records_.backend_built = measurer_ != nullptr;
    records_.backend = measurer_ ? measurer_->name() : "";
    records_.backends = backend_names_;
    records_.unit = status_.unit;
    records_.ready = status_.ready;
    records_.devices = status_.devices;
    records_.status = status_.message;
    records_.running = running();
    records_.error = last_error_;
    if (job_) {
        const std::lock_guard<std::mutex> lock(job_->mutex);
        records_.rows = job_->rows;
        records_.done = job_->done;
        records_.total = job_->total;
    } else {
        records_.rows = last_sweep_ ? last_sweep_->rows : std::vector<TimingRow>{};
        records_.done = last_done_;
        records_.total = last_total_;
    }
    if (!running()) recalibrate(state);
    records_.fit = calibration_.intra;
    records_.single_gpu = last_single_;
    records_.cluster_json = cluster_json_;
    records_.chart = make_chart(state);
    records_.command_line = cpu_ranks() ? mpirun_command_line(spec_, sweep_ranks(), status_.launcher.empty() ? "mpirun" : status_.launcher,
                                                              status_.executable.empty() ? "shardscope" : status_.executable)
                                        : sweep_command_line(spec_, false);
    records_.rows_caption = rows_caption();
    // nccl-tests drives one GPU per process unless told -g: name the GPUs the chart is about.
    SweepSpec nccl_tests = spec_;
    if (nccl_tests.gpus == 0) nccl_tests.gpus = records_.chart.ranks;
    records_.nccl_tests_command_line = sweep_command_line(nccl_tests, true);
}

void MeasurePanel::refresh(const AppState& state) {
    if (!probed_) probe_backend();
    collect_finished_job();
    rebuild_records(state);
}

// --- Drawing -------------------------------------------------------------------------------------

void MeasurePanel::draw(AppState& state) {
    refresh(state);
    draw_status();
    draw_controls(state);
    draw_progress();
    ImGui::Separator();

    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const bool wide = avail.x >= 900.0f;  // chart beside the read-outs; narrower windows stack them
    const float side_w = wide ? std::clamp(avail.x * 0.38f, 380.0f, 560.0f) : avail.x;
    const float chart_h = wide ? std::max(avail.y, 240.0f) : std::clamp(avail.y * 0.55f, 240.0f, 420.0f);
    ImGui::BeginChild("##measure_chart_area", ImVec2(wide ? avail.x - side_w - spacing : avail.x, chart_h), false);
    draw_chart();
    ImGui::EndChild();
    if (wide) ImGui::SameLine(0, spacing);
    ImGui::BeginChild("##measure_side", ImVec2(side_w, wide ? avail.y : 0), false);
    draw_fit(state);
    draw_single_gpu();
    draw_rows_table();
    ImGui::EndChild();
}

void MeasurePanel::draw_status() {
    const MeasureRecords& r = records_;
    ImGui::PushTextWrapPos(0.0f);
    if (!r.backend_built) {
        ImGui::TextColored(kWarning, "No measure backend in this build");
        ImGui::TextUnformatted(r.status.c_str());
    } else if (!r.ready) {
        ImGui::TextColored(kWarning, "Backend \"%s\" is built in, but has nothing to measure on", r.backend.c_str());
        ImGui::TextUnformatted(r.status.c_str());
    } else {
        ImGui::TextColored(kGood, "%s:", r.backend.c_str());
        ImGui::SameLine();
        ImGui::TextUnformatted(r.status.c_str());
    }
    ImGui::PopTextWrapPos();
    if (r.backend_built && ImGui::SmallButton("Check again")) probe_backend();
    if (r.backend_built) note_last_item("measure/refresh");
}

void MeasurePanel::draw_controls(AppState& state) {
    const bool busy = running();
    ImGui::BeginDisabled(busy);
    if (backend_names_.size() > 1) {
        ImGui::SetNextItemWidth(130);
        if (ImGui::BeginCombo("backend", measurer_ ? measurer_->name().c_str() : "none")) {
            for (const std::string& name : backend_names_)
                if (ImGui::Selectable(name.c_str(), measurer_ && name == measurer_->name())) choose_backend(name);
            ImGui::EndCombo();
        }
        note_last_item("measure/backend");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("cuda-nccl: NCCL on this machine's GPUs. cpu-mpi: MPI processes on this machine's CPU.");
        flow_control(labelled(150, "op"));
    }
    ImGui::SetNextItemWidth(150);
    if (ImGui::BeginCombo("op", std::string(measure_op_name(spec_.op)).c_str())) {
        for (Collective c : measurable_ops())
            if (ImGui::Selectable(std::string(measure_op_name(c)).c_str(), c == spec_.op)) {
                spec_.op = c;
                drop_algorithm_of_other_op();
            }
        ImGui::EndCombo();
    }
    note_last_item("measure/op");
    if (status_.animator_algorithms) draw_algorithm_choice();
    const auto size_field = [&](const char* label, char* text, std::size_t size, double& target) {
        flow_control(labelled(90, label));
        ImGui::SetNextItemWidth(90);
        if (ImGui::InputText(label, text, size)) {
            if (const auto bytes = parse_byte_size(text)) target = *bytes;
        }
        const bool is_min = label[0] == 'm' && label[1] == 'i';
        note_last_item(is_min ? "measure/min" : "measure/max");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("nccl-tests' %s: a size such as 8, 64KiB, 1GiB", is_min ? "-b" : "-e");
    };
    size_field("min (-b)", min_text_, sizeof min_text_, spec_.min_bytes);
    size_field("max (-e)", max_text_, sizeof max_text_, spec_.max_bytes);
    flow_control(labelled(70, "factor (-f)"));
    ImGui::SetNextItemWidth(70);
    ImGui::InputDouble("factor (-f)", &spec_.factor, 0, 0, "%g");
    const auto int_field = [&](const char* label, int& v, int lo) {
        flow_control(labelled(90, label));
        ImGui::SetNextItemWidth(90);
        if (ImGui::InputInt(label, &v)) v = std::max(v, lo);
    };
    int_field("iters (-n)", spec_.iters, 1);
    int_field("warmup (-w)", spec_.warmup, 0);
    int_field(cpu_ranks() ? "ranks (-np, 0 = 4)" : "GPUs (-g, 0 = all)", spec_.gpus, 0);
    if (spec_.algorithm == StepAlgorithm::hierarchical) {
        int_field("ranks per node", spec_.ranks_per_node, 0);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("The hierarchical algorithm's node size: ranks 0..n-1 form node 0, and so on. 0: the "
                              "ranks' real nodes.");
    }
    flow_control(labelled(20, "check"));
    ImGui::Checkbox("check", &spec_.check);
    note_last_item("measure/check");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Verify every result against the closed form (rank-dependent data)");
    ImGui::EndDisabled();

    const std::string invalid = sweep_problem();
    const bool one_gpu = status_.ready && !cpu_ranks() && (status_.devices < 2 || spec_.gpus == 1);
    const char* run_label = one_gpu ? "Measure one GPU (HBM, GEMM)" : "Run sweep";
    flow_control(ImGui::CalcTextSize(run_label).x + 20);
    ImGui::BeginDisabled(busy || !status_.ready || !invalid.empty());
    if (ImGui::Button(run_label)) {
        if (std::string e = start(state); !e.empty()) last_error_ = e;
    }
    note_last_item("measure/run");
    ImGui::EndDisabled();
    if (busy) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) cancel();
        note_last_item("measure/cancel");
    }
    if (!invalid.empty()) {
        ImGui::TextColored(kError, "%s", invalid.c_str());
        note_last_item("measure/invalid");
    }
}

void MeasurePanel::draw_algorithm_choice() {
    const std::string current = measure_algorithm_name(spec_.algorithm);
    flow_control(labelled(170, "algorithm"));
    ImGui::SetNextItemWidth(170);
    const bool open = ImGui::BeginCombo("algorithm", current == "mpi" ? "mpi (MPI's own)" : current.c_str());
    note_last_item("measure/algorithm");
    if (ImGui::IsItemHovered() && !open)
        ImGui::SetTooltip("mpi: the library's own collective. The others run the Collective animator's algorithm "
                          "over point-to-point messages, step for step as the animator draws it.");
    if (!open) return;
    if (ImGui::Selectable("mpi (MPI's own)", !spec_.algorithm)) {
        spec_.algorithm.reset();
        spec_.ranks_per_node = 0;
    }
    for (StepAlgorithm a : step_algorithms_for(spec_.op)) {
        if (ImGui::Selectable(measure_algorithm_name(a).c_str(), spec_.algorithm == a)) {
            spec_.algorithm = a;
            if (a != StepAlgorithm::hierarchical) spec_.ranks_per_node = 0;
        }
        note_last_item("measure/algorithm/" + measure_algorithm_name(a));
    }
    ImGui::EndCombo();
}

void MeasurePanel::draw_progress() {
    const MeasureRecords& r = records_;
    if (r.running) {
        const float fraction = r.total ? static_cast<float>(r.done) / static_cast<float>(r.total) : 0.0f;
        const std::string label = r.total ? std::to_string(r.done) + " / " + std::to_string(r.total) + " measured"
                                          : std::string("starting...");
        ImGui::ProgressBar(fraction, ImVec2(-1, 0), label.c_str());
        note_last_item("measure/progress");
    } else if (!r.error.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kError, "%s", r.error.c_str());
        ImGui::PopTextWrapPos();
    }
}

void MeasurePanel::draw_chart() {
    const MeasureChartRecord& c = records_.chart;
    ImGui::Text("Time of one %s against message size: the model and this machine", c.caption.c_str());
    if (c.bytes.empty()) {
        ImGui::TextDisabled("No sizes between min and max.");
        return;
    }
    const ImU32 predicted_colour = plot::categorical_colour(0), measured_colour = plot::categorical_colour(1),
                fitted_colour = plot::categorical_colour(4), earlier_colour = plot::categorical_colour(2);
    std::vector<plot::LegendEntry> legend{{"predicted (scenario's intra-node link)", predicted_colour}};
    legend.push_back({c.measured_s.empty() ? "measured (none yet)" : "measured", measured_colour});
    if (!c.fitted_s.empty()) legend.push_back({"fitted alpha-beta", fitted_colour});
    if (!c.earlier_s.empty()) legend.push_back({c.earlier_label, earlier_colour});
    plot::legend(legend);

    double lo = 1e300, hi = 0;
    for (const auto* v : {&c.predicted_s, &c.measured_s, &c.fitted_s, &c.earlier_s})
        for (double t : *v)
            if (t > 0) {
                lo = std::min(lo, t);
                hi = std::max(hi, t);
            }
    const auto [y_min, y_max] = decade_range(lo, hi);
    // x is log2(bytes) on a linear axis, so ticks land on KiB, MiB, GiB: log-log all the same.
    std::vector<double> x;
    for (double b : c.bytes) x.push_back(std::log2(b));
    const double x_lo = x.front(), x_hi = std::max(x.back(), x.front() + 1);
    plot::Axis x_axis("message size (S, nccl-tests' size)", x_lo, x_hi, plot::Scale::linear,
                      [](double v) { return format_bytes(std::exp2(v)); });
    plot::Axis y_axis("time", y_min, y_max, plot::Scale::log10, [](double v) { return format_seconds(v); });
    plot::Chart chart("##measure_chart", ImVec2(-1, -1), x_axis, y_axis);
    const ImVec2 frame_min = ImGui::GetItemRectMin(), frame_max = ImGui::GetItemRectMax();
    note_last_item("measure/chart");
    chart.line(plot::Series(legend[0].name, predicted_colour, x, c.predicted_s));
    if (!c.fitted_s.empty()) chart.line(plot::Series("fitted", fitted_colour, x, c.fitted_s, false, true));
    if (!c.earlier_s.empty()) {
        // Only the sizes this chart's axis spans.
        std::vector<double> ex, et;
        for (std::size_t i = 0; i < c.earlier_s.size(); ++i)
            if (const double v = std::log2(c.earlier_bytes[i]); v >= x_lo - 1e-9 && v <= x_hi + 1e-9) {
                ex.push_back(v);
                et.push_back(c.earlier_s[i]);
            }
        if (!ex.empty()) chart.line(plot::Series(c.earlier_label, earlier_colour, ex, et, true));
    }
    if (!c.measured_s.empty()) {
        const std::vector<double> mx(x.begin(), x.begin() + static_cast<long>(std::min(x.size(), c.measured_s.size())));
        chart.line(plot::Series("measured", measured_colour, mx, c.measured_s, true));
    } else {
        const char* text = records_.ready ? "Nothing measured yet: press Run sweep"
                                          : "Nothing measured: no GPU here (see above)";
        const ImVec2 size = ImGui::CalcTextSize(text);
        ImGui::GetWindowDrawList()->AddText(
            ImVec2((frame_min.x + frame_max.x - size.x) * 0.5f, frame_min.y + (frame_max.y - frame_min.y) * 0.3f),
            ImGui::GetColorU32(ImGuiCol_TextDisabled), text);
    }
    chart.end();
}

void MeasurePanel::draw_fit(AppState& state) {
    const ClusterSpec& cluster = state.scenario().cluster;
    heading("Calibration");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Least squares on t = steps x alpha + bytes_factor x S / B (relative error), the form "
                        "the cost model prices every collective with.");
    ImGui::PopTextWrapPos();
    const std::optional<LinkFit>& fit = records_.fit;
    const SingleGpuResult* single = records_.single_gpu ? &*records_.single_gpu : nullptr;
    if (ImGui::BeginTable("##measure_fit", 3, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("figure");
        ImGui::TableSetupColumn("scenario");
        ImGui::TableSetupColumn("measured");
        ImGui::TableHeadersRow();
        const auto row = [](const char* name, const std::string& model, const std::string& measured) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(model.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(measured.c_str());
        };
        const bool fitted = fit && fit->ok;
        row("intra-node alpha", format_seconds(cluster.intra_node.latency_us * 1e-6),
            fitted ? format_seconds(fit->alpha_s) : "-");
        row("intra-node B (busbw)", format_bandwidth(cluster.intra_node.bytes_per_s()),
            fitted ? format_bandwidth(fit->bandwidth_bytes_per_s) : "-");
        row("fit error (rms)", "", fitted ? format_percent(fit->rms_relative_error) : "-");
        row("HBM", format_bandwidth(cluster.gpu.hbm_bytes_per_s()),
            single && single->copy_bytes_per_s > 0 ? format_bandwidth(single->copy_bytes_per_s) : "-");
        row("GEMM ceiling", format_percent(hardware_figures(cluster.gpu).gemm_ceiling),
            calibrated_ && calibration_.best_gemm_flops_per_s
                ? format_percent(hardware_figures(calibrated_->gpu).gemm_ceiling)
                : "-");
        ImGui::EndTable();
    }
    if (fit && !fit->note.empty()) ImGui::TextColored(fit->ok ? kWarning : kError, "%s", fit->note.c_str());

    ImGui::BeginDisabled(cluster_json_.empty() || running());
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x -
                                                 ImGui::CalcTextSize("Save cluster JSON").x - 24));
    ImGui::InputText("##measure_path", path_text_, sizeof path_text_);
    ImGui::SameLine();
    if (ImGui::Button("Save cluster JSON")) {
        const std::string e = act(state, "save", path_text_);
        if (!e.empty()) notice_ = e;
    }
    note_last_item("measure/save");
    if (ImGui::Button("Use measured figures in the scenario")) {
        const std::string e = act(state, "apply", "1");
        if (!e.empty()) notice_ = e;
    }
    note_last_item("measure/apply");
    ImGui::EndDisabled();
    if (cluster_json_.empty()) ImGui::TextDisabled("Nothing to save until something was measured.");
    if (!notice_.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(notice_.c_str());
        ImGui::PopTextWrapPos();
    }
}

void MeasurePanel::draw_single_gpu() const {
    if (!records_.single_gpu) return;
    const SingleGpuResult& g = *records_.single_gpu;
    heading("One GPU");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("A collective needs two or more GPUs; one GPU still tells the compute side of the model.");
    if (g.copy_time_s > 0)
        ImGui::Text("HBM: %s (device-to-device copy of %s, read + write)", format_bandwidth(g.copy_bytes_per_s).c_str(),
                    format_bytes(g.copy_bytes).c_str());
    ImGui::PopTextWrapPos();
    if (!g.gemms.empty() && ImGui::BeginTable("##measure_gemm", 3, ImGuiTableFlags_BordersInnerH)) {
        ImGui::TableSetupColumn("bf16 GEMM");
        ImGui::TableSetupColumn("m x n x k");
        ImGui::TableSetupColumn("rate");
        ImGui::TableHeadersRow();
        for (const GemmTiming& t : g.gemms) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t.shape.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%lld x %lld x %lld", static_cast<long long>(t.shape.m), static_cast<long long>(t.shape.n),
                        static_cast<long long>(t.shape.k));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_flops_rate(t.flops_per_s).c_str());
        }
        ImGui::EndTable();
    }
    for (const std::string& note : g.notes) ImGui::TextDisabled("%s", note.c_str());
}

void MeasurePanel::draw_rows_table() const {
    heading(records_.rows_caption.c_str());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("The same sweep from a shell, and its nccl-tests counterpart:");
    ImGui::TextUnformatted(records_.command_line.c_str());
    ImGui::TextUnformatted(records_.nccl_tests_command_line.c_str());
    ImGui::PopTextWrapPos();
    if (records_.rows.empty()) {
        ImGui::TextDisabled("No rows yet.");
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("##measure_rows", 5, flags, ImVec2(0, std::max(120.0f, ImGui::GetContentRegionAvail().y))))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* name : {"size", "time", "algbw", "busbw", "#wrong"}) ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < records_.rows.size(); ++i) {
        const TimingRow& r = records_.rows[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_bytes(r.bytes).c_str());
        // Tests driving the real window read a sweep's rows, and whether each passed --check, from these.
        const std::string key = "measure/row/" + std::to_string(i);
        note_last_item(key);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_seconds(r.time_s).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_bandwidth(r.algbw).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_bandwidth(r.busbw).c_str());
        ImGui::TableNextColumn();
        if (!r.wrong) ImGui::TextDisabled("N/A");
        else if (*r.wrong == 0) {
            ImGui::TextColored(kGood, "0");
            note_last_item(key + "/checked");
        }
        else ImGui::TextColored(kError, "%lld", static_cast<long long>(*r.wrong));
    }
    ImGui::EndTable();
}

}  // namespace shardscope::ui
