#pragma once
// Measure panel: times real collectives through whichever backends this build registered with core
// (core/measure/measure.hpp): the GPUs' NCCL, or CPU ranks over MPI, where the sweep can also run the
// algorithms the Collective animator steps. The first backend with something to measure is chosen;
// a combo offers the others. It calibrates the model with what it measured.
// Shows the backend's status (or what is missing and how to get it), sweep controls, a progress bar
// and a cancel button while the sweep runs on a background thread, predicted (core's alpha-beta time
// on the scenario's intra-node link) against measured on one log-log chart, the fitted alpha and B
// (core/measure/calibration.hpp), and offers the calibrated cluster as a preset file or as the scenario's.
//
// Widgets do no file I/O: "Save" hands the text to a writer the app installs (set_measure_file_writer).
//
// Its actions (`--action measure.NAME=VALUE`, lesson steps) are declared in declare_actions();
// `shardscope --action list` prints them.

#include "core/measure/calibration.hpp"
#include "core/measure/measure.hpp"
#include "widgets/shell/panel.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// Writes text to a file for the panel; returns "" or the reason. Installed by the app at start.
using TextFileWriter = std::function<std::string(const std::string& path, const std::string& text)>;
void set_measure_file_writer(TextFileWriter writer);

// What the chart shows, every figure from core; kept so tests can read it.
struct MeasureChartRecord {
    Collective op = Collective::all_reduce;
    int ranks = 0;                    // of the sweep measured, or of the prediction when none
    std::vector<double> bytes;        // x: the sweep's sizes
    std::vector<double> predicted_s;  // core's alpha-beta time on the scenario's intra-node link
    std::vector<double> measured_s;   // empty until a sweep ran
    std::vector<double> fitted_s;     // empty until a fit succeeded
    // The sweep before the last one, when it timed the same op on as many ranks: the ring beside
    // MPI's own, say. Its own sizes; empty when there is none to compare with.
    std::vector<double> earlier_bytes;
    std::vector<double> earlier_s;
    std::string earlier_label;        // e.g. "earlier: MPI's own", "earlier: ring"
    std::string caption;              // e.g. "all_reduce on 8 GPUs"
};

// The panel's state after the last draw, for tests and lessons.
struct MeasureRecords {
    bool backend_built = false;       // a backend is registered
    bool ready = false;               // and it found something to measure on
    int devices = 0;
    std::string backend;              // its name, "" when none
    std::vector<std::string> backends;  // every backend this build has, for the combo
    std::string unit = "GPU";         // what a rank is on the chosen backend ("GPU", "CPU rank")
    std::string status;               // what the backend found, or what is missing and how to get it
    bool running = false;
    std::size_t done = 0, total = 0;  // progress of the running (or last) job
    std::string error;                // the last job's failure
    MeasureChartRecord chart;
    std::optional<LinkFit> fit;
    std::vector<TimingRow> rows;      // measured so far
    std::string rows_caption;         // which sweep the rows are: "Last sweep: all_reduce, ring, 4 ranks"
    std::optional<SingleGpuResult> single_gpu;
    std::string cluster_json;         // the calibrated cluster preset, when there is something to calibrate
    std::string command_line;         // the controls' sweep as `shardscope measure ...` (CPU: under mpirun)
    std::string nccl_tests_command_line;  // and as nccl-tests' binary with the same flags
};

class MeasurePanel final : public Panel {
public:
    MeasurePanel(Placement placement, bool open);
    ~MeasurePanel() override;  // cancels a running job and waits for it

    void draw(AppState& state) override;

    // Builds records() without drawing (tests, screenshots).
    void refresh(const AppState& state);
    [[nodiscard]] const MeasureRecords& records() const noexcept { return records_; }
    [[nodiscard]] const SweepSpec& spec() const noexcept { return spec_; }
    [[nodiscard]] bool running() const noexcept;
    // A sweep on GPUs redraws every frame; one on CPU ranks a few times a second, since the window's
    // own drawing would take the cores the ranks are timed on.
    [[nodiscard]] bool animating() const override { return running() && !job_on_cpu_; }
    [[nodiscard]] bool polling() const override { return running() && job_on_cpu_; }
    // Blocks until the running job (if any) ends: for tests and the command line, never the UI.
    void wait();

private:
    void declare_actions();
    struct Job;

    // Backend and jobs.
    void probe_backend();
    std::string start(const AppState& state);
    void cancel();
    void collect_finished_job();
    void recalibrate(const AppState& state);

    // Records.
    void rebuild_records(const AppState& state);
    [[nodiscard]] MeasureChartRecord make_chart(const AppState& state) const;

    // Drawing.
    void draw_status();
    void draw_controls(AppState& state);
    void draw_algorithm_choice();
    void draw_progress();
    void draw_chart();
    void draw_fit(AppState& state);
    void draw_rows_table() const;
    void draw_single_gpu() const;

    void choose_backend(const std::string& name);
    void drop_algorithm_of_other_op();
    // "" when the controls' sweep can start, else the flag and the rule (before anything is reset).
    [[nodiscard]] std::string sweep_problem() const;
    [[nodiscard]] std::string rows_caption() const;
    [[nodiscard]] bool cpu_ranks() const noexcept { return status_.unit != "GPU"; }
    [[nodiscard]] int sweep_ranks() const noexcept;

    std::shared_ptr<Measurer> measurer_;
    std::string backend_choice_;             // "" = the first backend with something to measure
    std::vector<std::string> backend_names_;
    bool probed_ = false;
    BackendStatus status_;
    SweepSpec spec_;
    std::unique_ptr<Job> job_;
    std::optional<MeasureResult> last_sweep_;
    std::optional<MeasureResult> earlier_sweep_;  // the one before, kept to compare with
    std::optional<SingleGpuResult> last_single_;
    std::string last_error_;
    std::size_t last_done_ = 0, last_total_ = 0;
    unsigned long calibrated_version_ = 0;  // scenario version the calibration was built for
    bool calibration_stale_ = true;
    Calibration calibration_;
    std::optional<ClusterSpec> calibrated_;  // the scenario's cluster with the measured figures
    std::string cluster_json_;
    SweepSpec job_spec_;                     // of the running or last sweep: the chart's sizes
    bool job_on_cpu_ = false;                // the running or last job's ranks are CPU processes
    std::string notice_;                     // result of the last save / apply
    char min_text_[32] = "8";
    char max_text_[32] = "128MiB";
    char path_text_[256] = "calibrated-cluster.json";
    MeasureRecords records_;
};

}  // namespace shardscope::ui
