#pragma once
// The app's tables as CSV (RFC 4180: comma-separated, a header row, fields with a comma, quote or line
// break quoted, "\r\n" never needed: lines end in "\n"), for a spreadsheet or a script. The columns say
// their unit: memory in GiB (as everywhere in Shardscope), times in seconds, traffic in GiB per step.
//   plan_csv     the planner's ranking, as `shardscope plan --format csv` prints it
//   memory_csv   every pipeline stage's memory per GPU, part by part
//   mesh_csv     every mesh dim: its groups, links and the communication it carries per step
//   breakdown_csv the busiest GPU's compute by operation, longest first, as `report --format csv` prints it

#include "core/mesh/mesh.hpp"
#include "core/model/report.hpp"
#include "core/planner/planner.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// One CSV field: as it is, or quoted with its quotes doubled when it holds a comma, quote or line break.
[[nodiscard]] std::string csv_field(std::string_view text);

// The rows of a ranking, best first (PlanResult::ranked, or the Planner panel's rows).
[[nodiscard]] std::string plan_csv(const std::vector<PlanEntry>& ranked);
[[nodiscard]] std::string memory_csv(const Report& report);
[[nodiscard]] std::string mesh_csv(const DeviceMesh& mesh, const Report& report);
// Empty (the header alone) for a model given as a parameter count, which has no operations.
[[nodiscard]] std::string breakdown_csv(const Report& report);

}  // namespace shardscope
