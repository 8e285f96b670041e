#pragma once
// The Chakra .et row of the export-target table (export/targets.h): its name, what the user is told
// about it, its writer. ExportTargetTable's constructor (core/export/targets.cpp) adds it.

#include "export/targets.h"

namespace linkscope::core {

ExportTarget chakraExportTarget();

} // namespace linkscope::core
