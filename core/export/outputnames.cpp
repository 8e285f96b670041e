#include "export/outputnames.h"

#include "export/targets.h"

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

std::string defaultExportPath(const std::string &devicePath, const ExportTarget &target, bool gzip)
{
    const std::filesystem::path dir = std::filesystem::path(devicePath).parent_path();
    return (dir / (exportBaseName(devicePath) + target.defaultSuffix + (gzip ? ".gz" : ""))).string();
}

std::map<std::string, std::string> defaultExportPaths(const std::string &devicePath, bool gzip)
{
    std::map<std::string, std::string> paths;
    for (const ExportTarget &target : exportTargets())
        paths[target.name] = defaultExportPath(devicePath, target, gzip);
    return paths;
}

} // namespace linkscope::core
