#include "export/targets.h"

#include "export/chakra/chakratarget.h"
#include "export/etplus/etplustarget.h"
#include "export/perfetto/perfettotarget.h"

#include <algorithm>
#include <stdexcept>

namespace linkscope::core {

ExportTargetTable::ExportTargetTable() : rows_{etPlusExportTarget(), chakraExportTarget(), perfettoExportTarget()} { }

const ExportTarget &ExportTargetTable::add(ExportTarget target)
{
    if (!target.write)
        throw std::invalid_argument("export target '" + target.name + "' has no writer");
    std::vector<std::string> names = target.aliases;
    names.push_back(target.name);
    for (const std::string &name : names)
        if (name.empty() || find(name))
            throw std::invalid_argument("export target name '" + name + "' is empty or taken");
    rows_.push_back(std::move(target));
    return rows_.back();
}

bool ExportTargetTable::remove(std::string_view name)
{
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const ExportTarget &t) { return t.name == name; });
    if (it == rows_.end())
        return false;
    rows_.erase(it);
    return true;
}

const ExportTarget *ExportTargetTable::find(std::string_view nameOrAlias) const
{
    for (const ExportTarget &target : rows_)
        if (target.name == nameOrAlias
            || std::find(target.aliases.begin(), target.aliases.end(), nameOrAlias) != target.aliases.end())
            return &target;
    return nullptr;
}

ExportTargetTable &exportTargets()
{
    static ExportTargetTable table;
    return table;
}

} // namespace linkscope::core
