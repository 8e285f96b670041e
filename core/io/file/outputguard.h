#pragma once
// Before a command writes anything: an output must not be one of its inputs, the corrections
// sidecar, or another output of the same run. Files are compared by device and inode (symbolic and
// hard links, "./x" and "x" are all the same file); a path that does not exist yet by its absolute,
// normalised form. "-" (standard output) may be given once.

#include <string>
#include <vector>

namespace linkscope::core {

struct NamedFile {
    std::string role; // "host trace", "--perfetto output", ... (for the message)
    std::string path;
};

// Throws WriteError naming the output and the file it would replace. Empty paths are skipped.
// Returns notes about leftover temporary files of the regular outputs (io/file/atomicfile.h's
// removeStaleTemporaries: removed, or left alone and why), one line each, for the user; with
// cleanTemporaries false that is left to the writes themselves (a job's thousands of outputs in
// one folder would scan it once per output here).
std::vector<std::string> checkOutputs(const std::vector<NamedFile> &outputs, const std::vector<NamedFile> &inputs,
                                      bool cleanTemporaries = true);

} // namespace linkscope::core
