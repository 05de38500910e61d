// The command line's conventions, the same for every command because one parser (CLI11) reads them
// all: --help and -h answer with exit 0, `help CMD` prints what `CMD --help` does, --opt=value and a
// glued short option mean what the spaced spelling means, "-" is standard input (and output where a
// file is written), a write that fails is an error, and measure takes nccl-tests' flag spellings.

#include "app_runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <regex>

using namespace shardscope::test;

namespace {

const std::string kModel = "'" SHARDSCOPE_SOURCE_DIR "/assets/models/llama3-8b.json'";
const std::string kScenario = "'" SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json'";

}  // namespace

TEST_CASE("every command answers --help, -h and `help CMD` alike, with its usage and exit 0") {
    const auto dir = scratch_dir("cli-help");
    for (const std::string command : {"report", "plan", "validate", "measure", "bench", "export", "convert"}) {
        CAPTURE(command);
        const RunResult long_form = run_shardscope(command + " --help", dir);
        CHECK(long_form.exit_code == 0);
        CHECK(long_form.err.empty());
        CHECK(long_form.out.rfind("usage: shardscope " + command, 0) == 0);
        const RunResult short_form = run_shardscope(command + " -h", dir);
        CHECK(short_form.exit_code == 0);
        CHECK(short_form.out == long_form.out);
        const RunResult help = run_shardscope("help " + command, dir);
        CHECK(help.exit_code == 0);
        CHECK(help.out == long_form.out);
        // Past the usage lines, a paragraph says what the command does and explains every flag the
        // usage names.
        const std::size_t text_at = long_form.out.find("\n  ");
        REQUIRE(text_at != std::string::npos);
        const std::string usage = long_form.out.substr(0, text_at), text = long_form.out.substr(text_at);
        const std::regex flag_pattern(R"((?:^|[\s\[|])(--?[A-Za-z][\w-]*))");
        for (auto it = std::sregex_iterator(usage.begin(), usage.end(), flag_pattern); it != std::sregex_iterator(); ++it) {
            const std::string flag = (*it)[1].str();
            CAPTURE(flag);
            CHECK(text.find(flag) != std::string::npos);
        }
    }
    const RunResult unknown = run_shardscope("help frobnicate", dir);
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err == "shardscope: help: 'frobnicate' is not a command (see shardscope --help)\n");
}

TEST_CASE("--opt=value and glued short options mean what the spaced spellings mean") {
    const auto dir = scratch_dir("cli-equals");
    const RunResult spaced = run_shardscope("report --model " + kModel + " --format text", dir);
    REQUIRE(spaced.exit_code == 0);
    const RunResult equals = run_shardscope("report --model=" + kModel + " --format=text", dir);
    CHECK(equals.exit_code == 0);
    CHECK(equals.out == spaced.out);

    const auto glued = dir / "megatron.sh";
    const RunResult exported = run_shardscope("export --config " + kScenario + " --to=megatron -o'" + glued.string() + "'", dir);
    CHECK(exported.exit_code == 0);
    CHECK(slurp(glued).find("--tensor-model-parallel-size") != std::string::npos);

    // The last of a repeated option wins, as in the GNU tools.
    const RunResult twice = run_shardscope("report --model " + kModel + " --format json --format text", dir);
    CHECK(twice.out == spaced.out);
}

TEST_CASE("report --format csv prints the compute by operation, and an unknown format is refused by name") {
    const auto dir = scratch_dir("cli-report-csv");
    const RunResult csv = run_shardscope("report --config " + kScenario + " --format csv", dir);
    REQUIRE(csv.exit_code == 0);
    CHECK(csv.out.rfind("operation,kind,time_s_per_step,recompute_s_per_step,share_of_compute,bound_by,flops_per_step\n", 0) == 0);
    CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') >= 6);
    const RunResult xml = run_shardscope("report --config " + kScenario + " --format xml", dir);
    CHECK(xml.exit_code == 2);
    CHECK(xml.err == "report: --format must be json, text or csv, got 'xml'\n");
}

TEST_CASE("a file of - is standard input, and export -o - is standard output") {
    const auto dir = scratch_dir("cli-stdin");
    const RunResult named = run_shardscope("report --config " + kScenario, dir);
    REQUIRE(named.exit_code == 0);
    const RunResult piped = run_shardscope("report --config - < " + kScenario, dir);
    CHECK(piped.exit_code == 0);
    CHECK(piped.out == named.out);
    CHECK(nlohmann::json::parse(piped.out)["world_size"] == 64);

    const RunResult to_stdout = run_shardscope("export --config - --to torchtitan -o - < " + kScenario, dir);
    CHECK(to_stdout.exit_code == 0);
    CHECK(to_stdout.out.find("config.parallelism = ParallelismConfig(") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "-"));
}

TEST_CASE("output that cannot be written is an error, not a silent success") {
    const auto dir = scratch_dir("cli-full");
    const auto err = dir / "err.txt";
    const std::string cmd = "XDG_CONFIG_HOME='" + (dir / "config").string() + "' '" SHARDSCOPE_EXE "' report --config " +
                            kScenario + " > /dev/full 2> '" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(slurp(err) == "shardscope: cannot write to standard output: No space left on device\n");
}

TEST_CASE("measure takes nccl-tests' spellings: -b8, --minbytes=8, -c N, -c alone, -o sum, a binary's name") {
    const auto dir = scratch_dir("cli-measure");
    // Parsed and accepted: without a GPU the command then says what is missing (exit 1), never exit 2.
    for (const std::string flags : {"-b8 -e1M -f2 -n1 -w0 -g0", "--minbytes=8 --maxbytes=1M --stepfactor=2 --iters=1",
                                    "-c 1 -b 8 -e 1M", "-c 5 -e 1M", "-b 8 -e 1M -c", "--check 0 -e 1M", "-o sum -d float -e 1M",
                                    "all_gather_perf -e 1M", "--collective all_gather -e 1M",
                                    "--warmup_iters=0 --ngpus=0 -e 1M"}) {
        CAPTURE(flags);
        const RunResult r = run_shardscope("measure " + flags, dir);
        CHECK(r.exit_code != 2);
        CHECK(r.err.find("usage:") == std::string::npos);
    }
    RunResult r = run_shardscope("measure -c -1", dir);
    CHECK(r.exit_code == 2);
    // The rule once, without the whole usage after it.
    CHECK(r.err == "measure: -c: '-1' must be a whole number of iterations to check, 0 (off) or more\n");
    r = run_shardscope("measure -b8X", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("measure: -b: '8X' is not a size", 0) == 0);
    r = run_shardscope("measure --iters", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--iters") != std::string::npos);
}

TEST_CASE("the window takes a scenario FILE as its argument, as a desktop's Open with passes it") {
    const auto dir = scratch_dir("cli-file");
    const auto saved = dir / "saved.json";
    const RunResult r = run_shardscope(kScenario + " --frames 1 --size 640x480 --screenshot '" + (dir / "s.png").string() +
                                           "' --save-as '" + saved.string() + "'",
                                       dir);
    CHECK(r.exit_code == 0);
    CHECK(nlohmann::json::parse(slurp(saved))["cluster"]["nodes"] == 8);
    // A screenshot run opens and saves files without adding them to the user's recent files.
    CHECK_FALSE(std::filesystem::exists(dir / "config" / "shardscope" / "recent.json"));
    const RunResult both = run_shardscope(kScenario + " --config " + kScenario, dir);
    CHECK(both.exit_code == 2);
    CHECK(both.err == "shardscope: a scenario FILE and --config name two scenarios: give one\n");
    // A bare word that is no file was meant as a command: said so, and no window tried.
    const RunResult typo = run_shardscope("repot --config " + kScenario, dir);
    CHECK(typo.exit_code == 2);
    CHECK(typo.err.rfind("shardscope: \"repot\" is neither a command nor a file (commands: bench, completions, convert, export, link, ", 0) == 0);
}

TEST_CASE("arguments a command does not take are named in the order typed, and a bare scenario file gets its flag") {
    const auto dir = scratch_dir("cli-extras");
    RunResult r = run_shardscope("report one two three", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("report: these arguments were not expected: one two three\nusage: shardscope report", 0) == 0);
    // `validate --scenario NAME` prints a file for `shardscope report`: given bare, the answer says where it goes.
    r = run_shardscope("report row.json", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("report: this argument was not expected: row.json (a scenario file goes after --config: "
                      "--config row.json)\n",
                      0) == 0);
    // validate reads no scenario: no such hint.
    r = run_shardscope("validate row.json", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("validate: this argument was not expected: row.json\n", 0) == 0);
}

TEST_CASE("options that go together are refused apart, and standard input is read once") {
    const auto dir = scratch_dir("cli-together");
    RunResult r = run_shardscope("--step 3 --screenshot '" + (dir / "x.png").string() + "'", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "shardscope: --step: goes with --lesson ID\n");
    r = run_shardscope("report --config - --model - < " + kScenario, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "report: --config - and --model - would both read standard input: give one of them a file\n");
    r = run_shardscope("--show nosuch --screenshot '" + (dir / "x.png").string() + "'", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("shardscope: --show: \"nosuch\" is not a panel id (panels: strategy, ", 0) == 0);
}

TEST_CASE("`shardscope link` prints a link the window opens: the same scenario, the same lesson step") {
    const auto dir = scratch_dir("cli-link");
    const RunResult link = run_shardscope("link --config " + kScenario + " --lesson pipeline-parallel --step 6", dir);
    REQUIRE(link.exit_code == 0);
    CHECK(link.out.rfind("http://localhost:8000/?lesson=pipeline-parallel&step=6#s=1.", 0) == 0);
    const std::string url = link.out.substr(0, link.out.size() - 1);  // without the newline
    const auto from_link = dir / "from-link.json";
    const auto from_file = dir / "from-file.json";
    const auto probe = dir / "probe.json";
    RunResult r = run_shardscope("'" + url + "' --frames 2 --size 1200x800 --ui-probe '" + probe.string() +
                                     "' --screenshot '" + (dir / "l.png").string() + "' --save-as '" + from_link.string() + "'",
                                 dir);
    REQUIRE(r.exit_code == 0);
    r = run_shardscope("--config " + kScenario + " --frames 1 --size 640x480 --screenshot '" + (dir / "f.png").string() +
                           "' --save-as '" + from_file.string() + "'",
                       dir);
    REQUIRE(r.exit_code == 0);
    // The link's scenario, not the lesson step's own, is what shows.
    CHECK(slurp(from_link) == slurp(from_file));
    bool lesson_at_step_6 = false;
    const nlohmann::json seen = nlohmann::json::parse(slurp(probe));
    for (const auto& w : seen["windows"])
        if (w["id"] == "lesson") lesson_at_step_6 = w["state"] == "lesson pipeline-parallel step 6 of 9";
    CHECK(lesson_at_step_6);
    // A lesson alone, through --link.
    r = run_shardscope("--link '?lesson=pipeline-parallel' --frames 1 --size 640x480 --screenshot '" +
                           (dir / "a.png").string() + "' --save-as '" + (dir / "lesson.json").string() + "'",
                       dir);
    CHECK(r.exit_code == 0);
}

TEST_CASE("a broken link, or one beside a scenario or lesson of its own, is refused with the reason") {
    const auto dir = scratch_dir("cli-link-bad");
    const std::string png = " --screenshot '" + (dir / "x.png").string() + "'";
    RunResult r = run_shardscope("--link '?lesson=pipeline-parallel&step=zero'" + png, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "shardscope: link: step: \"zero\" is not a whole number from 1\n");
    r = run_shardscope("--link '#s=1.Zm9v'" + png, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("shardscope: link: scenario: ", 0) == 0);
    r = run_shardscope("--config " + kScenario + " --link '?lesson=pipeline-parallel'" + png, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "shardscope: --link: a link names its own scenario and lesson: drop --config, FILE and --lesson\n");
    r = run_shardscope("--link '?lesson=pipeline-parallel' --step 2" + png, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "shardscope: --link: a link names its own step: drop --step\n");
    r = run_shardscope("link --step 2", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "link: --step: goes with --lesson ID\n");
    r = run_shardscope("link --base 'https://x.org/?a=1'", dir);
    CHECK(r.exit_code == 2);
    // A lesson or step the app would refuse makes no link: the same words as the app's --lesson.
    r = run_shardscope("link --lesson nosuch", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("link: --lesson: \"nosuch\" is not a lesson (lessons: why-split, ", 0) == 0);
    r = run_shardscope("link --lesson pipeline-parallel --step 99", dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "link: --lesson: lesson \"pipeline-parallel\" has steps 1 to 9, not 99\n");
}

TEST_CASE("`validate --scenario NAME` prints the row's scenario, which `report` prices as the table does") {
    const auto dir = scratch_dir("cli-validate-scenario");
    const RunResult table = run_shardscope("validate --format json", dir);
    REQUIRE(table.exit_code == 0);
    const nlohmann::json rows = nlohmann::json::parse(table.out);
    REQUIRE(rows.size() > 20);
    // Every row, typed with its columns' spaces squeezed to one as a person types a name.
    for (const auto& row : rows) {
        std::string name;
        for (char c : row["name"].get<std::string>())
            if (!(c == ' ' && !name.empty() && name.back() == ' ')) name.push_back(c);
        CAPTURE(name);
        const RunResult report = run_shardscope("validate --scenario '" + name + "' | '" SHARDSCOPE_EXE "' report --config -", dir);
        REQUIRE(report.exit_code == 0);
        const nlohmann::json r = nlohmann::json::parse(report.out);
        CHECK(r["time_s"]["step"].get<double>() == doctest::Approx(row["step_s"].get<double>()).epsilon(1e-9));
        CHECK(r["fits"] == row["fits"]);
    }
    const RunResult unknown = run_shardscope("validate --scenario 'GPT 2B'", dir);
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.rfind("validate: --scenario: no row is named 'GPT 2B'; the rows are:\n  GPT 1.7B t1 p1\n", 0) == 0);
}

TEST_CASE("report --trace - puts one document on standard output: the trace, and no report after it") {
    const auto dir = scratch_dir("cli-trace-stdout");
    const RunResult r = run_shardscope("report --config " + kScenario + " --trace -", dir);
    REQUIRE(r.exit_code == 0);
    // One JSON document, a Chrome trace (its events), not a trace followed by a report.
    REQUIRE(nlohmann::json::accept(r.out));
    const auto trace = nlohmann::json::parse(r.out);
    CHECK(trace.contains("traceEvents"));
    CHECK_FALSE(trace.contains("schema"));
    // To a file, the report still follows on standard output.
    const RunResult to_file = run_shardscope("report --config " + kScenario + " --trace '" + (dir / "t.json").string() + "'", dir);
    REQUIRE(to_file.exit_code == 0);
    CHECK(nlohmann::json::parse(to_file.out)["schema"] == "shardscope.report/1");
    CHECK(nlohmann::json::accept(slurp(dir / "t.json")));
}

TEST_CASE("convert turns a Hugging Face config into a scenario file with no display at all") {
    const auto dir = scratch_dir("cli-convert");
    const auto out = dir / "qwen3.json";
    // No DISPLAY: the window's --model ... --save-as would need one; convert does not.
    const RunResult r = run_shardscope("convert --model '" SHARDSCOPE_SOURCE_DIR "/examples/hf/Qwen3-8B/config.json' "
                                       "--seq-len 4096 -o '" + out.string() + "'",
                                       dir, "DISPLAY= WAYLAND_DISPLAY=");
    REQUIRE(r.exit_code == 0);
    const auto s = nlohmann::json::parse(slurp(out));
    CHECK(s["schema"] == "shardscope.scenario/1");
    CHECK(s["model"]["name"] == "Qwen3-8B");
    CHECK(s["model"]["layers"] == 36);
    CHECK(s["model"]["seq_len"] == 4096);
    // The file it wrote is one report takes.
    CHECK(run_shardscope("report --config '" + out.string() + "'", dir).exit_code == 0);
    // Without a model there is nothing to convert: exit 2 and why.
    const RunResult bare = run_shardscope("convert", dir);
    CHECK(bare.exit_code == 2);
    CHECK(bare.err.rfind("convert: --model is required", 0) == 0);
}

TEST_CASE("--model with a preset: the preset's own seq_len unless --seq-len says otherwise, which is said") {
    const auto dir = scratch_dir("seq-len-preset");
    const std::string preset = "--model '" SHARDSCOPE_SOURCE_DIR "/assets/models/deepseek-v3.json'";
    const RunResult own = run_shardscope("report " + preset, dir);
    REQUIRE(own.exit_code == 0);
    CHECK(own.err.find("as given") == std::string::npos);
    const RunResult given = run_shardscope("report " + preset + " --seq-len 8192", dir);
    REQUIRE(given.exit_code == 0);
    CHECK(given.err.find("seq_len 8192 as given (the preset says 4096)") != std::string::npos);
    CHECK(given.out != own.out);
}
