#pragma once
// The findings report: every finding of a link set with its subject and suggestion, as JSON (what
// `linkscope link --report` writes).

#include "link/chakracompare.h"
#include "link/linkset.h"
#include "link/policynotices.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <string>

namespace linkscope::core {

// `devicePath` / `hostPath` are written as given (hostPath empty: null); `host` may be null. With
// `comparison`, the report has "compared_with_chakra"; with `notices`, "notices" (docs/links-format.md).
std::string findingsReportJson(const std::string &devicePath, const std::string &hostPath, const DeviceTrace &trace,
                               const HostTrace *host, const LinkSet &links, const ChakraComparison *comparison = nullptr,
                               const std::vector<Notice> *notices = nullptr);

} // namespace linkscope::core
