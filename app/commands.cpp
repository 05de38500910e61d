#include "app/commands.hpp"

namespace shardscope::app {
namespace {
// A function-local static so registration from other translation units' initialisers is safe.
std::vector<Command>& registry() {
    static std::vector<Command> all;
    return all;
}
}  // namespace

bool register_command(Command command) {
    registry().push_back(std::move(command));
    return true;
}

const std::vector<Command>& commands() { return registry(); }

const Command* find_command(const std::string& name) {
    for (const Command& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace shardscope::app
