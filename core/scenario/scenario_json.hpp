#pragma once
// The strict JSON reader behind parse_scenario, shared with the preset loaders (core/scenario/presets.cpp) so
// a preset file is read by exactly the same rules as a scenario's "model" or "cluster" object.
// Internal to core: nothing outside core/ should include it.

#include "core/scenario/json_reader.hpp"
#include "core/scenario/scenario.hpp"

namespace shardscope::detail {

// One strict reader for every file the app takes: core/scenario/json_reader.hpp.
using json_read::fail;
using json_read::FieldError;
using json_read::join_path;
using json_read::Json;
using json_read::ObjectReader;

// The "model" and "cluster" objects of a scenario (paths in messages start with "model." / "cluster.").
// Throw FieldError on the first broken field rule; cross-field rules are validate_model / validate_cluster.
[[nodiscard]] ModelSpec read_model(const Json& j);
[[nodiscard]] ClusterSpec read_cluster(const Json& j);

}  // namespace shardscope::detail
