// The generator's options read from text, and the models its options name (the network, the clocks,
// the process groups).

#include "gen/rng.h"
#include "gen/tracegenerator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::gen {

std::int64_t collectiveTransferNs(std::string_view collective, std::int64_t groupSize, std::int64_t bytes,
                                  double busBandwidthGBps, double latencyUs, double scale)
{
    const double n = static_cast<double>(groupSize);
    const double latencyNs = latencyUs * 1000.0;
    const double bytesPerNs = busBandwidthGBps; // GB/s = bytes per ns
    const double size = static_cast<double>(bytes);
    double ns;
    if (groupSize <= 1)
        ns = latencyNs;
    else if (collective == "allreduce" || collective == "all_reduce")
        ns = 2.0 * (n - 1.0) / n * size / bytesPerNs + 2.0 * (n - 1.0) * latencyNs;
    else if (collective.find("allgather") != std::string_view::npos || collective.find("all_gather") != std::string_view::npos
             || collective.find("reduce_scatter") != std::string_view::npos)
        ns = (n - 1.0) / n * size / bytesPerNs + (n - 1.0) * latencyNs;
    else
        ns = size / bytesPerNs + latencyNs;
    return static_cast<std::int64_t>(std::llround(ns * scale));
}

bool parseRankDelay(const std::string &text, GeneratorOptions::RankDelay &delay)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
        return false;
    int rank = 0;
    auto r = std::from_chars(text.data(), text.data() + eq, rank);
    if (r.ec != std::errc() || r.ptr != text.data() + eq || rank < 0)
        return false;
    const std::string msText = text.substr(eq + 1);
    char *end = nullptr;
    const double ms = std::strtod(msText.c_str(), &end);
    if (end != msText.c_str() + msText.size() || !std::isfinite(ms) || ms < 0)
        return false;
    delay.rank = rank;
    delay.ms = ms;
    return true;
}

namespace {

// "LEFT=NUMBER" split at the last '=', NUMBER finite and > 0.
bool splitPositive(const std::string &text, std::string &left, double &value)
{
    const std::size_t eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
        return false;
    const std::string number = text.substr(eq + 1);
    char *end = nullptr;
    value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value) || value <= 0)
        return false;
    left = text.substr(0, eq);
    return true;
}

} // namespace

bool parseRankScale(const std::string &text, GeneratorOptions::RankScale &scale)
{
    std::string rankText;
    double factor = 0;
    int rank = 0;
    if (!splitPositive(text, rankText, factor))
        return false;
    const auto r = std::from_chars(rankText.data(), rankText.data() + rankText.size(), rank);
    if (r.ec != std::errc() || r.ptr != rankText.data() + rankText.size() || rank < 0)
        return false;
    scale.rank = rank;
    scale.factor = factor;
    return true;
}

bool parseKernelScale(const std::string &text, GeneratorOptions::KernelScale &scale)
{
    std::string pattern;
    double factor = 0;
    if (!splitPositive(text, pattern, factor))
        return false;
    try {
        std::regex check(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error &) {
        return false;
    }
    scale.pattern = pattern;
    scale.factor = factor;
    return true;
}

std::int64_t clockOffsetNs(std::uint64_t seed, int rank)
{
    if (rank <= 0)
        return 0;
    // Up to ±40 ms: far more than a collective lasts, so aligning by position alone would fail.
    const std::uint64_t h = mix(mix(seed ^ 0xc10cULL) + static_cast<std::uint64_t>(rank));
    return static_cast<std::int64_t>(h % 80'000'000ULL) - 40'000'000LL;
}

int resolvedTensorParallel(const GeneratorOptions &options)
{
    const int world = std::max(options.worldSize, 1);
    int tp = options.tensorParallel;
    if (tp <= 0)
        tp = (world >= 4 && world % 2 == 0) ? 2 : 1;
    if (tp > world || world % tp != 0)
        tp = 1;
    return tp;
}

bool parseFault(const std::string &text, GeneratorFault &fault)
{
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t colon = text.find(':', begin);
        parts.push_back(text.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin));
        if (colon == std::string::npos)
            break;
        begin = colon + 1;
    }
    if (parts.size() != 4 || parts[2].empty())
        return false;
    using K = GeneratorFault::Kind;
    if (parts[0] == "skip")
        fault.kind = K::Skip;
    else if (parts[0] == "resize")
        fault.kind = K::Resize;
    else if (parts[0] == "swap")
        fault.kind = K::Swap;
    else if (parts[0] == "drop-recv")
        fault.kind = K::DropRecv;
    else
        return false;
    auto integer = [](const std::string &t, int &out) {
        auto r = std::from_chars(t.data(), t.data() + t.size(), out);
        return r.ec == std::errc() && r.ptr == t.data() + t.size() && out >= 0;
    };
    fault.processGroup = parts[2];
    return integer(parts[1], fault.rank) && integer(parts[3], fault.index);
}

bool parseByteSize(const std::string &text, std::uint64_t &bytes)
{
    if (text.empty())
        return false;
    std::uint64_t value = 0;
    const char *begin = text.data();
    const char *end = text.data() + text.size();
    auto r = std::from_chars(begin, end, value);
    if (r.ec != std::errc() || r.ptr == begin)
        return false;
    std::string_view suffix(r.ptr, static_cast<std::size_t>(end - r.ptr));
    std::uint64_t scale = 1;
    if (suffix.empty() || suffix == "B")
        scale = 1;
    else if (suffix == "k" || suffix == "K" || suffix == "KB" || suffix == "KiB")
        scale = 1ULL << 10;
    else if (suffix == "M" || suffix == "MB" || suffix == "MiB")
        scale = 1ULL << 20;
    else if (suffix == "G" || suffix == "GB" || suffix == "GiB")
        scale = 1ULL << 30;
    else
        return false;
    bytes = value * scale;
    return true;
}

} // namespace linkscope::gen
