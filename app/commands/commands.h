#pragma once
// Headless subcommands. Each takes its arguments (without the subcommand name) and the
// streams to write to, and returns the process exit code. No Qt here: they run without a display.

#include <iosfwd>
#include <string>
#include <vector>

namespace linkscope::cli {

using Args = std::vector<std::string>;

int runInspect(const Args &args, std::ostream &out, std::ostream &err);
int runLink(const Args &args, std::ostream &out, std::ostream &err);
int runExport(const Args &args, std::ostream &out, std::ostream &err);
int runDump(const Args &args, std::ostream &out, std::ostream &err);
int runJob(const Args &args, std::ostream &out, std::ostream &err);
int runCheck(const Args &args, std::ostream &out, std::ostream &err);
int runWhatIf(const Args &args, std::ostream &out, std::ostream &err);
int runPredict(const Args &args, std::ostream &out, std::ostream &err);
int runSummary(const Args &args, std::ostream &out, std::ostream &err);
int runDiff(const Args &args, std::ostream &out, std::ostream &err);

struct Command {
    const char *name;
    const char *summary;
    int (*run)(const Args &, std::ostream &, std::ostream &);
};

// All subcommands, for dispatch and for --help.
const std::vector<Command> &commands();

// Prints the usage text listing every subcommand.
void printUsage(std::ostream &out);

// A non-negative integer option value (--top, --jobs), the whole text; false otherwise.
bool parseCount(const std::string &text, std::size_t &out);

} // namespace linkscope::cli
