// `shardscope validate [--format text|json]`: the built-in suite of published training runs
// (core/model/validation_suite.hpp), published vs predicted TFLOP/s per GPU and fraction of peak, with the
// error of each row. Exit 0 always when it ran: the table is the result, not a pass/fail gate.

#include "app/commands.hpp"
#include "core/model/validation_suite.hpp"

#include <iostream>

namespace {

int run_validate(const std::vector<std::string>& args) {
    std::string format = "text";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--format" && i + 1 < args.size()) {
            format = args[++i];
        } else {
            std::cerr << "validate: unexpected argument '" << args[i]
                      << "'\nusage: shardscope validate [--format text|json]\n";
            return 2;
        }
    }
    if (format != "text" && format != "json") {
        std::cerr << "validate: --format must be text or json, got '" << format << "'\n";
        return 2;
    }
    const auto rows = shardscope::run_validation_suite();
    std::cout << (format == "json" ? shardscope::validation_table_json(rows)
                                   : shardscope::validation_table_text(rows));
    return 0;
}

}  // namespace

SHARDSCOPE_COMMAND(validate, "compare the cost model with published training runs", &run_validate);
