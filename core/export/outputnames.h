#pragma once
// The one naming scheme for the files an export writes when the user names none (the GUI's export
// dialog proposes these): beside the device trace, named from its base name — the file name without
// ".gz" and its input format's name suffixes (io/formats.h traceBaseName; a Kineto trace's ".json",
// then PyTorch's ".pt.trace") — and each target's default suffix (export/targets.h):
//
//   dir/rank0.pt.trace.json.gz  →  dir/rank0.etplus.json     ET+ JSON (what chakra_trace_link writes)
//                                  dir/rank0.et              Chakra protobuf .et
//                                  dir/rank0.perfetto.json   Chrome / Perfetto trace with link arrows
//
// With gzip, ".gz" is appended to each. None of these can be the Kineto trace itself or its
// corrections sidecar (<kineto file>.linkscope.json).

#include <map>
#include <string>

namespace linkscope::core {

struct ExportTarget;
struct InputFormat;

// "dir/rank0.pt.trace.json.gz" → "rank0"; a name that would be empty keeps its full file name.
// `format`: the device trace's row (the device role's default row, the Kineto trace's, when null).
std::string exportBaseName(const std::string &devicePath, const InputFormat *format = nullptr);
// The default output of one target.
std::string defaultExportPath(const std::string &devicePath, const ExportTarget &target, bool gzip = false,
                              const InputFormat *format = nullptr);
// Every target's (its name → the path).
std::map<std::string, std::string> defaultExportPaths(const std::string &devicePath, bool gzip = false,
                                                      const InputFormat *format = nullptr);

} // namespace linkscope::core
