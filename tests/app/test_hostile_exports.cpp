// Exports are read by shells and by the frameworks' config readers: a scenario whose names carry line
// breaks, command substitution, quotes and backslashes is exported to every target, and each output
// is run (bash), imported (Python) or parsed (TOML, JSON) as its reader would. No file the names try to create appears.

#include "app_runner.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace shardscope::test;

namespace {

// Each payload creates a file with bash's builtins only, so it would run even with no PATH.
const std::string kHostile = "evil\necho nl > INJECTED_NL\n$(echo sub > INJECTED_SUB)`echo bt > INJECTED_BT`"
                             "'; echo q > INJECTED_Q; echo '\"; echo dq > INJECTED_DQ; echo \"\\\r"
                             "echo cr > INJECTED_CR\xe2\x80\xa8"
                             "echo ls > INJECTED_LS";

std::filesystem::path hostile_scenario(const std::filesystem::path& dir) {
    std::ifstream in(SHARDSCOPE_SOURCE_DIR "/examples/llama3-8b-64xh100.json");
    nlohmann::json s = nlohmann::json::parse(in);
    s["model"]["name"] = kHostile;
    s["cluster"]["name"] = kHostile;
    s["cluster"]["gpu"]["name"] = kHostile;
    const auto path = dir / "hostile.json";
    std::ofstream(path) << s.dump(2);
    return path;
}

bool any_injected(const std::filesystem::path& dir) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().rfind("INJECTED", 0) == 0) return true;
    return false;
}

}  // namespace

TEST_CASE("hostile names: the Megatron-LM and nccl-tests exports run by bash create nothing they name") {
    const auto dir = scratch_dir("hostile-shell");
    const auto scenario = hostile_scenario(dir);
    for (const char* target : {"megatron", "nccl-tests"}) {
        CAPTURE(target);
        const auto out = dir / (std::string(target) + ".sh");
        const RunResult r = run_shardscope("export --to " + std::string(target) + " --config '" + scenario.string() +
                                               "' -o '" + out.string() + "'",
                                           dir);
        REQUIRE(r.exit_code == 0);
        const std::string text = slurp(out);
        CHECK(text.find("INJECTED_NL") != std::string::npos);  // the name is there, made harmless
        // Every line bash reads as a command fails (the flags are no commands, mpirun is not on an
        // empty PATH); what matters is that the names' own commands never run.
        const std::string cmd = "cd '" + dir.string() + "' && env -i PATH=/nonexistent /bin/bash '" + out.string() +
                                "' > /dev/null 2>&1";
        (void)std::system(cmd.c_str());
        CHECK_FALSE(any_injected(dir));
        const std::string head = "cd '" + dir.string() + "' && head -2 '" + out.string() +
                                 "' | env -i PATH=/nonexistent /bin/bash > /dev/null 2>&1";
        (void)std::system(head.c_str());
        CHECK_FALSE(any_injected(dir));
    }
}

TEST_CASE("hostile names: TorchTitan's Python config loads, its TOML parses, the DeepSpeed export is JSON") {
    const auto dir = scratch_dir("hostile-config");
    const auto scenario = hostile_scenario(dir);
    // Today's TorchTitan imports the export as a module: loaded against its config classes
    // (tests/frameworks/torchtitan), every name stays in a comment.
    const auto py = dir / "titan.py";
    REQUIRE(run_shardscope("export --to torchtitan --config '" + scenario.string() + "' -o '" + py.string() + "'", dir)
                .exit_code == 0);
    const std::string load = "/usr/bin/python3 '" SHARDSCOPE_SOURCE_DIR "/tests/frameworks/torchtitan/check_export.py' '" +
                             py.string() + "' --world 64 > /dev/null";
    CHECK(std::system(load.c_str()) == 0);
    const auto toml = dir / "titan.toml";
    REQUIRE(run_shardscope("export --to torchtitan-toml --config '" + scenario.string() + "' -o '" + toml.string() + "'", dir)
                .exit_code == 0);
    // Python's own TOML reader (3.11+), which is what TorchTitan's releases up to 0.2.2 load job files with.
    const std::string check = "/usr/bin/python3 -c \"import sys, tomllib; c = tomllib.load(open(sys.argv[1], 'rb')); "
                              "assert c['parallelism']['tensor_parallel_degree'] == 2\" '" + toml.string() + "'";
    CHECK(std::system(check.c_str()) == 0);
    const RunResult ds = run_shardscope("export --to deepspeed --config '" + scenario.string() + "'", dir);
    REQUIRE(ds.exit_code == 0);
    CHECK(nlohmann::json::accept(ds.out));
    CHECK_FALSE(any_injected(dir));
}
