#include "export/outputnames.h"

#include <filesystem>
#include <string_view>

namespace linkscope::core {

namespace {

bool stripSuffix(std::string &name, std::string_view suffix)
{
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    name.resize(name.size() - suffix.size());
    return true;
}

} // namespace

std::string exportBaseName(const std::string &devicePath)
{
    std::string name = std::filesystem::path(devicePath).filename().string();
    stripSuffix(name, ".gz");
    stripSuffix(name, ".json");
    stripSuffix(name, ".pt.trace");
    return name;
}

ExportPaths defaultExportPaths(const std::string &devicePath, bool gzip)
{
    const std::filesystem::path dir = std::filesystem::path(devicePath).parent_path();
    const std::string base = exportBaseName(devicePath);
    const std::string gz = gzip ? ".gz" : "";
    auto beside = [&](const std::string &suffix) { return (dir / (base + suffix + gz)).string(); };
    return {beside(".etplus.json"), beside(".et"), beside(".perfetto.json")};
}

} // namespace linkscope::core
