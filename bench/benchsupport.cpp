#include "benchsupport.h"

#include <sched.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace linkscope::bench {

namespace {

std::uint64_t statusField(const char *field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(field) + ":";
    while (std::getline(status, line)) {
        if (line.rfind(prefix, 0) == 0) {
            std::istringstream in(line.substr(prefix.size()));
            std::uint64_t kb = 0;
            in >> kb;
            return kb * 1024;
        }
    }
    return 0;
}

} // namespace

std::uint64_t peakRssBytes() { return statusField("VmHWM"); }
std::uint64_t currentRssBytes() { return statusField("VmRSS"); }

bool resetPeakRss()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return static_cast<bool>(clear);
}

namespace {
cpu_set_t savedAffinity;
bool haveSavedAffinity = false;
} // namespace

bool pinToOneCore()
{
    cpu_set_t current;
    CPU_ZERO(&current);
    if (sched_getaffinity(0, sizeof current, &current) != 0)
        return false;
    if (!haveSavedAffinity) {
        savedAffinity = current;
        haveSavedAffinity = true;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &current)) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof one, &one) == 0;
        }
    }
    return false;
}

void unpinCores()
{
    if (haveSavedAffinity)
        sched_setaffinity(0, sizeof savedAffinity, &savedAffinity);
}

double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void printResult(std::ostream &out, const std::string &name, double value, const std::string &unit)
{
    // Whole numbers for large values, three significant digits for small ones.
    std::ostringstream v;
    if (std::fabs(value) >= 100)
        v << std::fixed << std::setprecision(0) << value;
    else
        v << std::setprecision(3) << value;
    out << "RESULT " << name << '=' << v.str() << ' ' << unit << '\n';
}

std::string takeOption(Args &args, const std::string &name, const std::string &fallback)
{
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == name) {
            std::string value = args[i + 1];
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
            return value;
        }
    }
    return fallback;
}

bool takeFlag(Args &args, const std::string &name)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == name) {
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
            return true;
        }
    }
    return false;
}

} // namespace linkscope::bench
