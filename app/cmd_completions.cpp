// `shardscope completions bash|zsh`: a completion script for the shell, made from the parsers the
// commands and the window declare (app/cli.hpp, DeclaredFlags): each command's flags exactly as it
// takes them, the commands with their summaries, and files for everything else. The build writes both
// scripts (app/CMakeLists.txt) and `cmake --install` puts them where bash-completion and zsh look.

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"

#include <iostream>
#include <map>
#include <set>

namespace {

using namespace shardscope::app;

constexpr const char* kUsage =
    "usage: shardscope completions bash|zsh\n"
    "  Prints a completion script for the shell: source it, or install it as bash-completion's\n"
    "  completions/shardscope or zsh's _shardscope (cmake --install does both)";

// The flags a command's parser declares ("" for the window), sorted and once each.
std::set<std::string> declared_flags(const Command* command) {
    DeclaredFlags declared;
    if (command) (void)command->run({});
    else {
        std::string error;
        (void)parse_options({}, error);
    }
    return {declared.flags.begin(), declared.flags.end()};
}

std::string joined(const std::set<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// Inside a shell's single quotes: a quote ends them, so it is written '\'' (commands' summaries are
// the program's own text, but nothing here relies on that).
std::string single_quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string bash_script(const std::map<std::string, std::set<std::string>>& flags, const std::set<std::string>& window) {
    std::set<std::string> names{"help"};
    for (const auto& [name, _] : flags) names.insert(name);
    std::string s = "# bash completion for shardscope, written by `shardscope completions bash` (Shardscope " SHARDSCOPE_VERSION ")\n"
                    "_shardscope() {\n"
                    "    local cur=${COMP_WORDS[COMP_CWORD]} flags\n"
                    "    local commands=" + single_quoted(joined(names)) + "\n"
                    "    case ${COMP_WORDS[1]} in\n";
    for (const auto& [name, declared] : flags) s += "        " + name + ") flags=" + single_quoted(joined(declared)) + " ;;\n";
    s += "        help)\n"
         "            [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
         "            return ;;\n"
         "        *) flags=" + single_quoted(joined(window)) + " ;;\n"
         "    esac\n"
         "    if [[ $cur == -* ]]; then\n"
         "        COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
         "    elif [[ $COMP_CWORD -eq 1 ]]; then\n"
         "        COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
         "    else\n"
         "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    fi\n"
         "}\n"
         "complete -o filenames -F _shardscope shardscope\n";
    return s;
}

std::string zsh_script(const std::map<std::string, std::set<std::string>>& flags, const std::set<std::string>& window) {
    std::string s = "#compdef shardscope\n"
                    "# zsh completion for shardscope, written by `shardscope completions zsh` (Shardscope " SHARDSCOPE_VERSION ")\n"
                    "_shardscope() {\n"
                    "  local -a commands flags\n"
                    "  commands=(\n";
    for (const Command& c : commands())
        if (flags.count(c.name)) s += "    " + single_quoted(c.name + ":" + c.summary) + "\n";
    s += "    'help:print a command'\\''s usage'\n"
         "  )\n"
         "  if (( CURRENT == 2 )) && [[ $words[CURRENT] != -* ]]; then\n"
         "    _describe -t commands 'shardscope command' commands\n"
         "    _files\n"
         "    return\n"
         "  fi\n"
         "  case $words[2] in\n";
    for (const auto& [name, declared] : flags) s += "    (" + name + ") flags=(" + joined(declared) + ") ;;\n";
    s += "    (help) (( CURRENT == 3 )) && _describe -t commands 'shardscope command' commands; return ;;\n"
         "    (*) flags=(" + joined(window) + ") ;;\n"
         "  esac\n"
         "  if [[ $words[CURRENT] == -* ]]; then\n"
         "    compadd -a flags\n"
         "  else\n"
         "    _files\n"
         "  fi\n"
         "}\n"
         "_shardscope \"$@\"\n";
    return s;
}

int run_completions(const std::vector<std::string>& args) {
    std::string shell;
    CLI::App parser;
    configure_parser(parser);
    parser.add_option("shell", shell);
    if (const auto exit = parse_arguments(parser, args, "completions", kUsage)) return *exit;
    if (shell != "bash" && shell != "zsh") {
        std::cerr << "completions: the shell must be bash or zsh, got '" << shell << "'\n" << kUsage << "\n";
        return 2;
    }
    std::map<std::string, std::set<std::string>> flags;
    for (const Command& c : commands()) flags[c.name] = declared_flags(&c);
    const std::set<std::string> window = declared_flags(nullptr);
    std::cout << (shell == "bash" ? bash_script(flags, window) : zsh_script(flags, window));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(completions, "print a bash or zsh completion script for shardscope", &run_completions);
