// Shell completion: the scripts `shardscope completions` writes, run by bash as bash-completion runs
// them (COMP_WORDS, COMP_CWORD, then the function), and read by zsh; their flags are the parsers' own.

#include "app_runner.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

using namespace shardscope::test;

namespace {

// What bash completes for the words typed so far (the last one being completed).
std::set<std::string> bash_completes(const std::filesystem::path& script, const std::string& words, const std::filesystem::path& dir) {
    const auto out = dir / "reply";
    const std::string cmd = "cd '" + dir.string() + "' && /bin/bash -c 'source \"$0\"; COMP_WORDS=(" + words +
                            "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _shardscope; printf \"%s\\n\" \"${COMPREPLY[@]}\"' '" +
                            script.string() + "' > '" + out.string() + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::set<std::string> reply;
    std::istringstream lines(slurp(out));
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) reply.insert(line);
    return reply;
}

}  // namespace

TEST_CASE("bash completion: commands, each command's own flags, help's command names") {
    const auto dir = scratch_dir("completions-bash");
    const RunResult r = run_shardscope("completions bash", dir);
    REQUIRE(r.exit_code == 0);
    const auto script = dir / "shardscope.bash";
    std::ofstream(script) << r.out;
    CHECK(bash_completes(script, "shardscope exp", dir) == std::set<std::string>{"export"});
    CHECK(bash_completes(script, "shardscope export --t", dir) == std::set<std::string>{"--to"});
    CHECK(bash_completes(script, "shardscope measure --coll", dir) == std::set<std::string>{"--collective"});
    CHECK(bash_completes(script, "shardscope measure -d", dir) == std::set<std::string>{"-d"});
    CHECK(bash_completes(script, "shardscope plan --all", dir) == std::set<std::string>{"--all-orders"});
    // The window's flags where no command is named, and no command's.
    CHECK(bash_completes(script, "shardscope --scr", dir) == std::set<std::string>{"--screenshot"});
    CHECK(bash_completes(script, "shardscope --to", dir).empty());
    CHECK(bash_completes(script, "shardscope help pl", dir) == std::set<std::string>{"plan"});
    CHECK(bash_completes(script, "shardscope completions --h", dir) == std::set<std::string>{"--help"});
    // Files where a value goes.
    std::ofstream(dir / "run.json") << "{}";
    CHECK(bash_completes(script, "shardscope report --config ru", dir) == std::set<std::string>{"run.json"});
}

TEST_CASE("zsh completion: a #compdef script zsh parses, with each command's flags") {
    const auto dir = scratch_dir("completions-zsh");
    const RunResult r = run_shardscope("completions zsh", dir);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("#compdef shardscope\n", 0) == 0);
    CHECK(r.out.find("    (export) flags=(--config --help --model --output --seq-len --to -h -o) ;;") != std::string::npos);
    CHECK(r.out.find("'report:print the cost of one scenario: memory, step time, MFU'") != std::string::npos);
    const auto script = dir / "_shardscope";
    std::ofstream(script) << r.out;
    const std::string parse = "/usr/bin/zsh -n '" + script.string() + "'";
    CHECK(std::system(parse.c_str()) == 0);
    CHECK(run_shardscope("completions fish", dir).exit_code == 2);
}
