#pragma once
// Shared pieces of linkscope-bench: timing, memory figures, the RESULT line, argument helpers.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace linkscope::bench {

using Args = std::vector<std::string>;

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) { }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    void restart() { start_ = std::chrono::steady_clock::now(); }

private:
    std::chrono::steady_clock::time_point start_;
};

// Peak resident set size of this process (VmHWM), in bytes; 0 if /proc is unavailable.
std::uint64_t peakRssBytes();
// Current resident set size (VmRSS), in bytes.
std::uint64_t currentRssBytes();
// Resets VmHWM to the current RSS (Linux ≥ 4.0, /proc/self/clear_refs "5") so that the next
// peakRssBytes() covers only what follows. Returns false if the kernel refused.
bool resetPeakRss();
// Restricts the process to one CPU so a "one core" figure means one core even if a stage starts threads.
bool pinToOneCore();
// Gives back the cores pinToOneCore() took away.
void unpinCores();

// 1 MB = 10^6 bytes throughout the bench output.
double megabytes(std::uint64_t bytes);

std::string readFile(const std::string &path);

// Prints the single closing line every stage ends with: "RESULT name=value unit".
void printResult(std::ostream &out, const std::string &name, double value, const std::string &unit);

// "--name value" lookup; removes both from args. Returns fallback when absent.
std::string takeOption(Args &args, const std::string &name, const std::string &fallback);
bool takeFlag(Args &args, const std::string &name);

int runLoad(Args args, std::ostream &out, std::ostream &err);
int runLink(Args args, std::ostream &out, std::ostream &err);
int runExport(Args args, std::ostream &out, std::ostream &err);
int runHash(Args args, std::ostream &out, std::ostream &err);
int runWalk(Args args, std::ostream &out, std::ostream &err);
int runRange(Args args, std::ostream &out, std::ostream &err);
int runRender(Args args, std::ostream &out, std::ostream &err); // built only with the UI
int runWhatIf(Args args, std::ostream &out, std::ostream &err); // built only with the UI

} // namespace linkscope::bench
