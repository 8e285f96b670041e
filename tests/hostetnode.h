#pragma once
// One node of a host ET (schema 1.1.1-chakra.0.0.4, nested layout) as JSON, for tests that write
// small pairs by hand: empty inputs and outputs, rf_id = id, the given ctrl parent and tid.

#include <nlohmann/json.hpp>

#include <string>

namespace linkscope::test {

inline nlohmann::json hostEtNode(int id, const std::string &name, int parent, int tid)
{
    const nlohmann::json none = {
        {"values", nlohmann::json::array()}, {"shapes", nlohmann::json::array()}, {"types", nlohmann::json::array()}};
    nlohmann::json n = {{"id", id}, {"name", name}, {"ctrl_deps", parent}, {"inputs", none}, {"outputs", none}};
    n["attrs"] = {
        {{"name", "rf_id"}, {"type", "uint64"}, {"value", id}},    {{"name", "fw_parent"}, {"type", "uint64"}, {"value", 0}},
        {{"name", "seq_id"}, {"type", "int64"}, {"value", -1}},    {{"name", "scope"}, {"type", "uint64"}, {"value", 0}},
        {{"name", "tid"}, {"type", "uint64"}, {"value", tid}},     {{"name", "fw_tid"}, {"type", "uint64"}, {"value", 0}},
        {{"name", "op_schema"}, {"type", "string"}, {"value", ""}}};
    return n;
}

} // namespace linkscope::test
