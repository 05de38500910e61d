// docs/shardscope.scenario.schema.json and the scenario loader name the same fields: a document with
// every field the schema lists (each at its example or default) loads, and each object reader accepted
// exactly the schema's properties of that object; what the saver writes is in the schema too. (That
// the shipped examples validate against the schema is checked by tests/schema/check_schema.py, with
// Debian's python3-jsonschema.)
#include "core/scenario/json_reader.hpp"
#include "core/scenario/scenario.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace shardscope;
using Json = nlohmann::ordered_json;

namespace {

Json read_schema() {
    std::ifstream in(SHARDSCOPE_SOURCE_DIR "/docs/shardscope.scenario.schema.json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    return Json::parse(text.str());
}

// The object path the loader reports for each of the schema's definitions.
const std::map<std::string, std::string> kDefinitionPaths = {
    {"model", "model"},       {"cluster", "cluster"},       {"gpu", "cluster.gpu"},  {"intra_node", "cluster.intra_node"},
    {"inter_node", "cluster.inter_node"}, {"host", "cluster.host"}, {"parallel", "parallel"}, {"training", "training"}, {"run", "run"}};

const Json& definition(const Json& schema, const Json& property) {
    const std::string ref = property.at("$ref").get<std::string>();  // "#/$defs/NAME"
    return schema.at("$defs").at(ref.substr(ref.rfind('/') + 1));
}

// A document holding every property of `object`, each at its first example, else its default.
Json every_field(const Json& schema, const Json& object) {
    Json out = Json::object();
    for (const auto& [key, property] : object.at("properties").items()) {
        if (property.contains("$ref")) out[key] = every_field(schema, definition(schema, property));
        else if (property.contains("const")) out[key] = property.at("const");
        else if (property.contains("examples")) out[key] = property.at("examples").at(0);
        else {
            REQUIRE_MESSAGE(property.contains("default"), key << " has neither an example nor a default");
            out[key] = property.at("default");
        }
    }
    return out;
}

std::set<std::string> property_names(const Json& object) {
    std::set<std::string> out;
    for (const auto& [key, _] : object.at("properties").items()) out.insert(key);
    return out;
}

// Every key of `doc` is a property of `object` in the schema, at every level.
void check_keys_in_schema(const Json& schema, const Json& object, const Json& doc, const std::string& path) {
    for (const auto& [key, value] : doc.items()) {
        const Json& properties = object.at("properties");
        CHECK_MESSAGE(properties.contains(key), path << "." << key << " is written but not in the schema");
        if (properties.contains(key) && properties.at(key).contains("$ref"))
            check_keys_in_schema(schema, definition(schema, properties.at(key)), value, path + "." + key);
    }
}

}  // namespace

TEST_CASE("every field of the schema loads, and each object reader accepted exactly the schema's fields") {
    const Json schema = read_schema();
    const Json doc = every_field(schema, schema);
    json_read::ReaderLog log;
    const ScenarioLoad load = parse_scenario(doc.dump());
    CHECK_MESSAGE(load.ok(), load.error);
    CHECK(log.keys.at("") == property_names(schema));
    for (const auto& [name, path] : kDefinitionPaths) {
        INFO(path);
        REQUIRE(log.keys.count(path) == 1);
        CHECK(log.keys.at(path) == property_names(schema.at("$defs").at(name)));
    }
    CHECK(log.keys.size() == kDefinitionPaths.size() + 1);
}

TEST_CASE("what the saver writes is in the schema: the default scenario and one with every optional field") {
    const Json schema = read_schema();
    Scenario full = default_scenario();
    full.model.tie_embeddings = true;
    full.model.dropout = false;
    full.model.head_dim = 128;
    full.model.capacity_factor = 1.25;
    full.model.experts = 8;
    full.model.top_k = 2;
    full.model.expert_ffn_hidden = 14336;
    full.model.expert_groups = 4;
    full.model.expert_groups_per_token = 2;
    full.model.attention_type = AttentionType::mla;
    full.model.q_lora_rank = 1536;
    full.model.kv_lora_rank = 512;
    full.model.qk_rope_head_dim = 64;
    full.model.qk_nope_head_dim = 128;
    full.model.v_head_dim = 128;
    full.cluster.gpu.matmul_efficiency = 0.8;
    full.cluster.gpu.sm_count = 132;
    full.cluster.gpu.memory_mib = 81559;
    full.cluster.gpu.reserve_gib = 1.5;
    full.cluster.gpu.board_power_w = 700;
    full.run = RunSpec{15.6e12, 2000, 50677.0, 10.0, 2.0, 1.1};
    full.cluster.inter_node.nics_per_node = 8;
    full.parallel.first_stage_layers = 15;
    full.parallel.last_stage_layers = 15;
    full.parallel.embedding_in_pipeline_split = true;
    full.cluster.host = HostSpec{2048.0, 52.77, 112};
    full.training.offload = Offload::optimizer;
    for (const Scenario& s : {default_scenario(), full}) {
        const Json written = Json::parse(scenario_to_json(s));
        check_keys_in_schema(schema, schema, written, "");
    }
}

TEST_CASE("a field the schema does not list is refused by the loader, naming it") {
    const Json schema = read_schema();
    Json doc = every_field(schema, schema);
    doc["training"]["learning_rate"] = 3e-4;
    const ScenarioLoad load = parse_scenario(doc.dump());
    CHECK_FALSE(load.ok());
    CHECK(load.error == "training.learning_rate: unknown field");
}
