#include "export/outputnames.h"

#include "export/targets.h"
#include "io/formats.h"

#include <filesystem>

namespace linkscope::core {

std::string exportBaseName(const std::string &devicePath, const InputFormat *format)
{
    return traceBaseName(std::filesystem::path(devicePath).filename().string(), format);
}

std::string defaultExportPath(const std::string &devicePath, const ExportTarget &target, bool gzip, const InputFormat *format)
{
    const std::filesystem::path dir = std::filesystem::path(devicePath).parent_path();
    return (dir / (exportBaseName(devicePath, format) + target.defaultSuffix + (gzip ? ".gz" : ""))).string();
}

std::map<std::string, std::string> defaultExportPaths(const std::string &devicePath, bool gzip, const InputFormat *format)
{
    std::map<std::string, std::string> paths;
    for (const ExportTarget &target : exportTargets())
        paths[target.name] = defaultExportPath(devicePath, target, gzip, format);
    return paths;
}

} // namespace linkscope::core
