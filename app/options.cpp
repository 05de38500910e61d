#include "app/options.hpp"

#include "app/commands.hpp"

#include <cstdio>
#include <sstream>

namespace shardscope::app {

namespace {

bool parse_int(const std::string& s, int lo, int hi, int& out) {
    try {
        size_t used = 0;
        const long v = std::stol(s, &used);
        if (used != s.size() || v < lo || v > hi) return false;
        out = static_cast<int>(v);
        return true;
    } catch (...) {
        return false;
    }
}

bool parse_size(const std::string& s, int& w, int& h) {
    const auto x = s.find('x');
    return x != std::string::npos && parse_int(s.substr(0, x), 320, 8192, w) &&
           parse_int(s.substr(x + 1), 240, 8192, h);
}

}  // namespace

std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error) {
    Options o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto value = [&](const char* what) -> const std::string* {
            if (i + 1 >= args.size()) {
                error = a + ": needs " + what;
                return nullptr;
            }
            return &args[++i];
        };
        if (a == "-h" || a == "--help") o.help = true;
        else if (a == "--version") o.version = true;
        else if (a == "--config") { auto v = value("a scenario file"); if (!v) return std::nullopt; o.config = *v; }
        else if (a == "--model") { auto v = value("a model preset or Hugging Face config.json"); if (!v) return std::nullopt; o.model = *v; }
        else if (a == "--seq-len") {
            auto v = value("a sequence length");
            if (!v) return std::nullopt;
            int n = 0;
            if (!parse_int(*v, 1, 16777216, n)) { error = "--seq-len: must be a whole number from 1 to 16777216"; return std::nullopt; }
            o.seq_len = n;
        }
        else if (a == "--lesson") { auto v = value("a lesson id"); if (!v) return std::nullopt; o.lesson = *v; }
        else if (a == "--screenshot") { auto v = value("an output .png path"); if (!v) return std::nullopt; o.screenshot = *v; }
        else if (a == "--show") {
            auto v = value("panel ids, e.g. mesh,memory");
            if (!v) return std::nullopt;
            std::stringstream ss(*v);
            for (std::string id; std::getline(ss, id, ',');)
                if (!id.empty()) o.show.push_back(id);
        } else if (a == "--action") {
            auto v = value("PANEL.ACTION=VALUE, or list");
            if (!v) return std::nullopt;
            if (*v == "list") o.list_actions = true;
            else o.actions.push_back(*v);
        }
        else if (a == "--save-as") { auto v = value("an output .json path"); if (!v) return std::nullopt; o.save_as = *v; }
        else if (a == "--ui-probe") { auto v = value("an output .json path"); if (!v) return std::nullopt; o.ui_probe = *v; }
        else if (a == "--step") {
            auto v = value("a step number");
            if (!v) return std::nullopt;
            if (!parse_int(*v, 1, 1000, o.step)) { error = "--step: must be a whole number from 1 to 1000"; return std::nullopt; }
        } else if (a == "--frames") {
            auto v = value("a frame count");
            if (!v) return std::nullopt;
            if (!parse_int(*v, 1, 100000, o.frames)) { error = "--frames: must be a whole number from 1 to 100000"; return std::nullopt; }
        } else if (a == "--size") {
            auto v = value("WIDTHxHEIGHT");
            if (!v) return std::nullopt;
            if (!parse_size(*v, o.width, o.height)) { error = "--size: must be WIDTHxHEIGHT, e.g. 1600x1000"; return std::nullopt; }
        } else {
            error = a + ": unknown option (see shardscope --help)";
            return std::nullopt;
        }
    }
    if (o.seq_len && o.model.empty()) {
        error = "--seq-len: goes with --model FILE";
        return std::nullopt;
    }
    return o;
}

std::string usage_text() {
    std::ostringstream os;
    os << "Shardscope " << SHARDSCOPE_VERSION << ": see and price how LLM training is split across GPUs.\n\n"
       << "usage: shardscope [--config FILE] [--model FILE [--seq-len N]] [--lesson ID [--step K]] [--size WxH]\n"
       << "                  [--frames N] [--screenshot OUT.png] [--save-as FILE.json]\n"
       << "       shardscope COMMAND [options]   (COMMAND --help for its options)\n\n"
       << "  --config FILE        open this scenario (JSON) instead of the default\n"
       << "  --model FILE         put this model in the scenario: a model preset or a Hugging Face\n"
       << "                       config.json (Llama, Mistral, Mixtral, Qwen2/3, DeepSeek-V3)\n"
       << "  --seq-len N          the training sequence length for --model (a config.json's\n"
       << "                       max_position_embeddings is its context window; default: the scenario's)\n"
       << "  --lesson ID          open a lesson; --step K at its K-th step\n"
       << "  --screenshot OUT.png render N frames (--frames, default 6), save a PNG, exit\n"
       << "  --save-as FILE.json  save the scenario (after --config, --lesson and --action) to FILE\n"
       << "  --ui-probe FILE      for tests driving the real window: write each frame's window and widget\n"
       << "                       rectangles, the outlined panel and the scenario to FILE (JSON)\n"
       << "  --size WxH           window size in pixels\n"
       << "  --show ID[,ID]       open only these panels, side by side (ids: strategy, mesh, memory, scenario,\n"
       << "                       collective, pipeline, planner, cheatsheet, glossary, lesson, measure)\n"
       << "  --action ID.NAME=V   tell a panel to do something first, e.g. collective.step=5 (repeatable)\n"
       << "  --action list        print every panel's actions and the values each takes\n"
       << "\ncommands:\n";
    for (const Command& c : commands()) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-20s %s\n", c.name.c_str(), c.summary.c_str());
        os << line;
    }
    return os.str();
}

}  // namespace shardscope::app
