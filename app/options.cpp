#include "app/options.hpp"

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "host/file_io.hpp"
#include "core/scenario/share_link.hpp"

#include <cstdio>
#include <filesystem>
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

// A link (the browser page's address, core/scenario/share_link.hpp) opens what it names: its lesson and
// step, its scenario. It names what to open by itself, so --config, a FILE or --lesson beside it is refused.
bool take_link(const std::string& url, Options& o, std::string& error) {
    if (!o.config.empty() || !o.lesson.empty()) {
        error = "--link: a link names its own scenario and lesson: drop --config, FILE and --lesson";
        return false;
    }
    const auto link = parse_share_link(url, error);  // its error names the link's part
    if (!link) return false;
    o.lesson = link->lesson;
    if (link->step > 0) o.step = link->step;
    o.link_scenario = link->scenario;
    return true;
}

}  // namespace

std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error) {
    Options o;
    std::string step, frames, size, show, file, link;
    ModelFlags model_flags;
    std::vector<std::string> actions;
    CLI::App parser;
    configure_parser(parser);
    parser.set_help_flag();  // answered by main: -h and --help print usage_text()
    parser.add_flag("-h,--help", o.help);
    parser.add_flag("--version", o.version);
    parser.add_option("--config", o.config);
    add_model_flags(parser, model_flags);
    parser.add_option("--lesson", o.lesson);
    parser.add_option("--screenshot", o.screenshot);
    parser.add_option("--show", show);
    parser.add_option("--action", actions)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    parser.add_option("--save-as", o.save_as);
    parser.add_option("--ui-probe", o.ui_probe);
    parser.add_option("--step", step);
    parser.add_option("--frames", frames);
    parser.add_option("--size", size);
    parser.add_option("--link", link);
    parser.add_option("file", file);  // a desktop's "Open with": the same as --config FILE, or a link
    if (record_declared_flags(parser)) return std::nullopt;
    try {
        parser.parse(std::vector<std::string>(args.rbegin(), args.rend()));
    } catch (const CLI::ExtrasError&) {
        error = unexpected_arguments_message(parser.remaining(), false) + " (see shardscope --help)";
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        error = std::string(e.what()) + " (see shardscope --help)";
        return std::nullopt;
    }
    if (!file.empty() && looks_like_share_link(file) && link.empty()) std::swap(file, link);
    // A bare word that names no file was most likely meant as a command: say so, not "cannot open".
    if (!file.empty() && file.find_first_of("/.") == std::string::npos && !std::filesystem::exists(file)) {
        std::string names;
        for (const Command& c : commands()) names += (names.empty() ? "" : ", ") + c.name;
        error = "\"" + file + "\" is neither a command nor a file (commands: " + names + "; see shardscope --help)";
        return std::nullopt;
    }
    if (!file.empty()) {
        if (!o.config.empty()) {
            error = "a scenario FILE and --config name two scenarios: give one";
            return std::nullopt;
        }
        o.config = file;
    }
    for (const std::string& action : actions) {
        if (action == "list") o.list_actions = true;
        else o.actions.push_back(action);
    }
    std::stringstream ids(show);
    for (std::string id; std::getline(ids, id, ',');)
        if (!id.empty()) o.show.push_back(id);
    // The same --model and --seq-len rules as the commands', standard input read once included.
    const std::optional<ModelArgument> model = model_argument(model_flags, error, o.config == host::kStandardStream);
    if (!model) return std::nullopt;
    o.model = model->file;
    o.seq_len = model->seq_len;
    if (!step.empty() && !parse_int(step, 1, 1000, o.step)) { error = "--step: must be a whole number from 1 to 1000"; return std::nullopt; }
    if (!frames.empty() && !parse_int(frames, 1, 100000, o.frames)) { error = "--frames: must be a whole number from 1 to 100000"; return std::nullopt; }
    if (!size.empty() && !parse_size(size, o.width, o.height)) { error = "--size: must be WIDTHxHEIGHT, from 320x240 to 8192x8192, e.g. 1600x1000"; return std::nullopt; }
    if (!link.empty()) {
        if (!step.empty()) {
            error = "--link: a link names its own step: drop --step";
            return std::nullopt;
        }
        return take_link(link, o, error) ? std::optional<Options>(o) : std::nullopt;
    }
    if (!step.empty() && o.lesson.empty()) {
        error = "--step: goes with --lesson ID";
        return std::nullopt;
    }
    return o;
}

std::string usage_text() {
    std::ostringstream os;
    os << "Shardscope " << SHARDSCOPE_VERSION << ": see and price how LLM training is split across GPUs.\n\n"
       << "usage: shardscope [--config FILE | FILE | --link URL] [--model FILE [--seq-len N]] [--lesson ID [--step K]]\n"
       << "                  [--size WxH] [--frames N] [--screenshot OUT.png] [--save-as FILE.json]\n"
       << "       shardscope COMMAND [options]   (shardscope help COMMAND, or COMMAND --help, for its options)\n\n"
       << "  --config FILE        open this scenario (JSON) instead of the default; - reads standard input\n"
       << "  --model FILE         put this model in the scenario: a model preset or a Hugging Face\n"
       << "                       config.json (Llama, Mistral, Mixtral, Qwen2/3, DeepSeek-V3)\n"
       << "  --seq-len N          the training sequence length for --model (a config.json's\n"
       << "                       max_position_embeddings is its context window; default: the scenario's)\n"
       << "  --lesson ID          open a lesson; --step K at its K-th step\n"
       << "  --link URL           open what a link from the browser page (scripts/web) or `shardscope link`\n"
       << "                       names: its lesson and step, its scenario (a FILE that is a URL does too)\n"
       << "  --version            print the version and exit\n"
       << "  --screenshot OUT.png render N frames (--frames, default 6), save a PNG, exit\n"
       << "  --save-as FILE.json  save the scenario (after --config, --lesson and --action) to FILE;\n"
       << "                       without --screenshot it then exits, opening no window\n"
       << "  --ui-probe FILE      for tests driving the real window: write each frame's window and widget\n"
       << "                       rectangles, the outlined panel and the scenario to FILE (JSON)\n"
       << "  --size WxH           window size in pixels\n"
       << "  --show ID[,ID]       open only these panels, side by side (ids: strategy, mesh, memory, scenario,\n"
       << "                       collective, pipeline, planner, cheatsheet, glossary, lesson, measure)\n"
       << "  --action ID.NAME=V   tell a panel to do something first, e.g. collective.step=5 (repeatable)\n"
       << "  --action list        print every panel's actions and the values each takes\n"
       << "\nOptions take their value as --opt VALUE or --opt=VALUE.\n"
       << "\ncommands:\n";
    for (const Command& c : commands()) {
        char name[32];
        std::snprintf(name, sizeof name, "  %-20s ", c.name.c_str());
        os << name << c.summary << "\n";
    }
    os << "  help COMMAND         print COMMAND's options\n";
    return os.str();
}

}  // namespace shardscope::app
