#include "predict/whatif.h"

#include "export/chakra/etbounds.h"
#include "export/chakra/etformat.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace linkscope::core {

namespace {

std::string numberText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace

double parseFactor(const std::string &text, const std::string &what, double low, double high)
{
    // strtod, not stod: stod throws out_of_range for 1e-400 or 1e400, which would read as "not a number".
    const char *begin = text.c_str();
    char *end = nullptr;
    const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? std::nan("") : std::strtod(begin, &end);
    const std::string range = "[" + numberText(low) + ", " + numberText(high) + "]";
    if (end != begin + text.size() || std::isnan(v))
        throw std::invalid_argument(what + ": '" + text + "' is not a number (expected one in " + range + ")");
    if (!(v >= low && v <= high))
        throw std::invalid_argument(what + ": " + text + " is out of range: expected a number in " + range);
    return v;
}

std::regex compileNamePattern(const std::string &pattern)
{
    // The pattern alone first: it must be a regex by itself (wrapped, an unbalanced ')' could pass).
    const std::regex alone(pattern, std::regex::ECMAScript);
    (void)alone;
#if defined(__GLIBCXX__)
    // Anchored at the name's start after any prefix: one breadth-first pass over the name instead of
    // a backtracking search from every position.
    return std::regex("[\\s\\S]*(?:" + pattern + ")", std::regex::ECMAScript | std::regex_constants::__polynomial);
#else
    return std::regex(pattern, std::regex::ECMAScript);
#endif
}

bool searchName(const std::string &name, const std::regex &compiled)
{
    // A name cut at the cap does not end there: '$' does not match at the cut.
    const bool cut = name.size() > kMaxMatchedNameChars;
    const auto end = name.begin() + static_cast<std::ptrdiff_t>(cut ? kMaxMatchedNameChars : name.size());
    const auto flags = cut ? std::regex_constants::match_not_eol : std::regex_constants::match_default;
#if defined(__GLIBCXX__)
    return std::regex_search(name.begin(), end, compiled, flags | std::regex_constants::match_continuous);
#else
    return std::regex_search(name.begin(), end, compiled, flags);
#endif
}

namespace {

bool isCpu(const ChakraProtoMsg::Node &node)
{
    for (const auto &a : node.attr())
        if (a.name() == "is_cpu_op")
            return a.bool_val();
    return true;
}

} // namespace

WhatIf::NameScale parseNameScale(const std::string &text, const std::string &flag)
{
    const std::size_t eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument(flag + " expects [RANK:]REGEX=K, got '" + text + "'");
    WhatIf::NameScale s;
    s.pattern = text.substr(0, eq);
    // "6:aten::mm" is rank 6's aten::mm; "aten::mm" every rank's (a regex does not start with digits and ':').
    std::size_t digits = 0;
    while (digits < s.pattern.size() && s.pattern[digits] >= '0' && s.pattern[digits] <= '9')
        ++digits;
    if (digits > 0 && digits < s.pattern.size() && s.pattern[digits] == ':') {
        if (digits > 9)
            throw std::invalid_argument(flag + ": '" + s.pattern.substr(0, digits) + "' is not a rank");
        s.rank = std::stoll(s.pattern.substr(0, digits));
        s.pattern = s.pattern.substr(digits + 1);
        if (s.pattern.empty())
            throw std::invalid_argument(flag + " expects [RANK:]REGEX=K, got '" + text + "'");
    }
    const std::string what = flag + " " + (s.rank >= 0 ? std::to_string(s.rank) + ":" : "") + s.pattern;
    s.factor = parseFactor(text.substr(eq + 1), what);
    try {
        s.compiled = compileNamePattern(s.pattern);
    } catch (const std::regex_error &e) {
        throw std::invalid_argument(
            flag + ": '" + s.pattern + "' is not a regular expression"
            + (e.code() == std::regex_constants::error_complexity ? " this what-if takes (no back-references)" : std::string())
            + ": " + e.what());
    }
    return s;
}

std::pair<std::int64_t, double> parseRankDelay(const std::string &text)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("--delay-rank expects R=MS, got '" + text + "'");
    std::size_t used = 0;
    long long rank = -1;
    try {
        rank = std::stoll(text.substr(0, eq), &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != eq || rank < 0)
        throw std::invalid_argument("--delay-rank: '" + text.substr(0, eq) + "' is not a rank");
    return {rank, parseFactor(text.substr(eq + 1), "--delay-rank " + text.substr(0, eq) + " (ms)", 0, kMaxWhatIfDelayMs)};
}

std::pair<std::int64_t, double> parseStreamScale(const std::string &text)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("--scale-stream expects S=K, got '" + text + "'");
    std::size_t used = 0;
    long long stream = -1;
    try {
        stream = std::stoll(text.substr(0, eq), &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != eq || stream < 0)
        throw std::invalid_argument("--scale-stream: '" + text.substr(0, eq) + "' is not a stream id");
    return {stream, parseFactor(text.substr(eq + 1), "--scale-stream " + text.substr(0, eq))};
}

const char kWhatIfOptionsUsage[] =
    "  --scale-gpu [R:]REGEX=K  GPU ops whose name matches REGEX (ECMAScript, searched) take K times as long;\n"
    "                        R: on rank R only (e.g. 'gemm=0.5', '^(?!Memcpy|Memset)=2', '3:gemm=0.5')\n"
    "  --scale-cpu [R:]REGEX=K  CPU ops whose name matches REGEX take K times as long; R: on rank R only\n"
    "                        (e.g. '.*=0.5': all CPU work; '6:.*=0.5': rank 6's CPU; 'aten::copy_=0')\n"
    "  --scale-stream S=K    GPU ops on stream S take K times as long\n"
    "  --scale-comm K        every transfer takes K times as long (bandwidth / K, latency x K)\n"
    "  --scale-network K     network bandwidth x K (latency unchanged)\n"
    "  --scale-latency K     network latency x K (bandwidth unchanged)\n"
    "  --delay-rank R=MS     rank R spends MS ms more CPU time at the start of every profiled step\n"
    "                        (added to its ProfilerStep#N nodes; without them, once to its first CPU op)\n"
    "  Bounds: K in [0, 1e6] (--scale-comm and --scale-network: [1e-6, 1e6]), MS in [0, 1e7]; a name is\n"
    "  matched on its first 4096 characters; no back-references in REGEX\n";

bool applyWhatIfOption(WhatIf &whatIf, const std::string &flag, const std::function<std::string()> &value)
{
    if (flag == "--scale-gpu") {
        whatIf.gpu.push_back(parseNameScale(value(), flag));
    } else if (flag == "--scale-cpu") {
        whatIf.cpu.push_back(parseNameScale(value(), flag));
    } else if (flag == "--scale-stream") {
        const auto [stream, k] = parseStreamScale(value());
        whatIf.streamFactor[stream] = k;
    } else if (flag == "--scale-comm" || flag == "--scale-network" || flag == "--scale-latency") {
        // A bandwidth divided by 0 (or nearly) is no network: those two take at least kMinNetworkFactor.
        const double k = parseFactor(value(), flag, flag == "--scale-latency" ? 0 : kMinNetworkFactor);
        (flag == "--scale-comm"      ? whatIf.transferFactor
         : flag == "--scale-network" ? whatIf.bandwidthFactor
                                     : whatIf.latencyFactor) = k;
    } else if (flag == "--delay-rank") {
        const auto [rank, ms] = parseRankDelay(value());
        whatIf.rankDelayMs[rank] += ms;
    } else {
        return false;
    }
    return true;
}

namespace {

std::pair<double, bool> nameFactor(const std::vector<WhatIf::NameScale> &scales, const std::string &name, std::int64_t rank)
{
    double factor = 1;
    bool matched = false;
    for (const WhatIf::NameScale &s : scales)
        if (s.appliesTo(rank) && s.matches(name)) {
            factor *= s.factor;
            matched = true;
        }
    return {factor, matched};
}

} // namespace

std::pair<double, bool> WhatIf::gpuFactor(const std::string &name, std::int64_t stream, std::int64_t rank) const
{
    auto [factor, matched] = nameFactor(gpu, name, rank);
    if (const auto it = streamFactor.find(stream); it != streamFactor.end()) {
        factor *= it->second;
        matched = true;
    }
    return {factor, matched};
}

std::pair<double, bool> WhatIf::cpuFactor(const std::string &name, std::int64_t rank) const
{
    return nameFactor(cpu, name, rank);
}

std::string WhatIf::describe() const
{
    std::ostringstream out;
    const char *sep = "";
    for (const NameScale &s : gpu) {
        out << sep << (s.rank >= 0 ? "rank " + std::to_string(s.rank) + "'s " : std::string()) << "GPU ops /" << s.pattern
            << "/ ×" << s.factor;
        sep = ", ";
    }
    for (const NameScale &s : cpu) {
        out << sep << (s.rank >= 0 ? "rank " + std::to_string(s.rank) + "'s " : std::string()) << "CPU ops /" << s.pattern
            << "/ ×" << s.factor;
        sep = ", ";
    }
    for (const auto &[stream, factor] : streamFactor) {
        out << sep << "stream " << stream << " ×" << factor;
        sep = ", ";
    }
    if (transferFactor != 1) {
        out << sep << "transfers ×" << transferFactor;
        sep = ", ";
    }
    if (bandwidthFactor != 1) {
        out << sep << "bandwidth ×" << bandwidthFactor;
        sep = ", ";
    }
    if (latencyFactor != 1) {
        out << sep << "latency ×" << latencyFactor;
        sep = ", ";
    }
    for (const auto &[rank, ms] : rankDelayMs) {
        out << sep << "rank " << rank << " +" << ms << " ms per step";
        sep = ", ";
    }
    return empty() ? "no change" : out.str();
}

namespace {

std::int64_t intAttr(const ChakraProtoMsg::Node &node, const char *name, std::int64_t fallback)
{
    for (const auto &a : node.attr())
        if (a.name() == name)
            return a.int64_val();
    return fallback;
}

// duration_micros and lane_dur_ns × factor (whole µs, as ASTRA-sim reads them; ns for the lane), a
// kernel's dispatch latency (attr dispatch_ns) kept.
void scaleNode(ChakraProtoMsg::Node &node, double factor)
{
    const std::int64_t keep = intAttr(node, "dispatch_ns", 0);
    node.set_duration_micros(static_cast<std::uint64_t>(
        std::max<std::int64_t>(scaledMicros(static_cast<std::int64_t>(node.duration_micros()), keep, factor), 0)));
    for (auto &a : *node.mutable_attr())
        if (a.name() == "lane_dur_ns")
            a.set_int64_val(scaledNs(a.int64_val(), keep, factor));
}

// Saturating, as scaled times are: a delay at its bound on a node at kMaxScaledNs stays in range,
// within what the replay's reader takes.
static_assert(kMaxScaledNs / 1000 * 2 <= static_cast<std::int64_t>(kMaxEtDurationMicros) && kMaxScaledNs * 2 <= kMaxEtLaneNs);
void addDelay(ChakraProtoMsg::Node &node, std::uint64_t micros)
{
    const std::uint64_t cap = static_cast<std::uint64_t>(kMaxScaledNs / 1000);
    node.set_duration_micros(std::min(node.duration_micros(), cap) + std::min(micros, cap));
    for (auto &a : *node.mutable_attr())
        if (a.name() == "lane_dur_ns")
            a.set_int64_val(std::min(a.int64_val(), kMaxScaledNs) + static_cast<std::int64_t>(std::min(micros, cap)) * 1000);
}

} // namespace

WhatIfStats applyWhatIf(ChakraTrace &trace, std::int64_t rank, const WhatIf &whatIf)
{
    WhatIfStats stats;
    const auto delay = whatIf.rankDelayMs.find(rank);
    const std::uint64_t delayMicros = delay == whatIf.rankDelayMs.end()
                                          ? 0
                                          : static_cast<std::uint64_t>(saturatedNs(delay->second * 1000.0));
    ChakraProtoMsg::Node *firstCpu = nullptr;
    // One search per distinct name and kind: names repeat (every step runs the same kernels).
    std::unordered_map<std::string, std::pair<double, bool>> cpuByName, gpuByName;
    auto cached = [](auto &cache, const std::string &name, auto compute) {
        const auto it = cache.find(name);
        return it != cache.end() ? it->second : cache.emplace(name, compute()).first->second;
    };
    for (ChakraProtoMsg::Node &node : trace.nodes) {
        if (node.type() != ChakraProtoMsg::COMP_NODE)
            continue;
        if (isCpu(node)) {
            if (!firstCpu || node.id() < firstCpu->id())
                firstCpu = &node;
            if (!whatIf.cpu.empty()) { // scaled first: the delay is not scaled
                const auto [factor, matched] = cached(cpuByName, node.name(),
                                                      [&] { return whatIf.cpuFactor(node.name(), rank); });
                if (matched) {
                    scaleNode(node, factor);
                    ++stats.cpuNodesScaled;
                }
            }
            if (delayMicros && node.name().starts_with("ProfilerStep#")) {
                addDelay(node, delayMicros);
                ++stats.stepsDelayed;
            }
            continue;
        }
        const std::int64_t stream = whatIf.streamFactor.empty() ? -1 : intAttr(node, "stream", -1);
        auto [factor, matched] = whatIf.gpu.empty()
                                     ? std::pair<double, bool>(1, false)
                                     : cached(gpuByName, node.name(), [&] { return whatIf.gpuFactor(node.name(), -1, rank); });
        if (const auto it = whatIf.streamFactor.find(stream); it != whatIf.streamFactor.end()) {
            factor *= it->second;
            matched = true;
        }
        if (matched) {
            scaleNode(node, factor);
            ++stats.gpuNodesScaled;
        }
    }
    if (delayMicros && stats.stepsDelayed == 0 && firstCpu) {
        addDelay(*firstCpu, delayMicros);
        stats.delayOnFirstOp = true;
    }
    return stats;
}

double scaledBandwidthGBps(double bandwidthGBps, const WhatIf &whatIf)
{
    const double v = bandwidthGBps * whatIf.bandwidthFactor / whatIf.transferFactor;
    return std::isnan(v) ? kMinScaledBandwidthGBps : std::clamp(v, kMinScaledBandwidthGBps, kMaxNetworkValue);
}

double scaledLatencyNs(double latencyNs, const WhatIf &whatIf)
{
    const double v = latencyNs * whatIf.transferFactor * whatIf.latencyFactor;
    return std::isnan(v) ? kMaxNetworkValue : std::clamp(v, 0.0, kMaxNetworkValue);
}

std::string scaleNetworkYaml(const std::string &text, const WhatIf &whatIf)
{
    std::istringstream in(text);
    std::ostringstream out;
    std::string line;
    bool bandwidth = false, latency = false;
    auto rewrite = [](const std::string &l, const std::function<double(double)> &scale) {
        const std::size_t open = l.find('['), close = l.find(']');
        if (open == std::string::npos || close == std::string::npos || close < open)
            throw std::runtime_error("network file: cannot read the value in '" + l + "'");
        std::string values = l.substr(open + 1, close - open - 1), scaled;
        std::istringstream list(values);
        std::string item;
        while (std::getline(list, item, ',')) {
            std::size_t used = 0;
            double v = 0;
            try {
                v = std::stod(item, &used);
            } catch (const std::exception &) {
                throw std::runtime_error("network file: '" + item + "' is not a number in '" + l + "'");
            }
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.9g", scale(v));
            scaled += (scaled.empty() ? " " : ", ") + std::string(buf);
        }
        return l.substr(0, open + 1) + scaled + " " + l.substr(close);
    };
    while (std::getline(in, line)) {
        const std::size_t start = line.find_first_not_of(" \t");
        const std::string key = start == std::string::npos ? "" : line.substr(start);
        if (key.starts_with("bandwidth:")) {
            line = rewrite(line, [&](double v) { return scaledBandwidthGBps(v, whatIf); });
            bandwidth = true;
        } else if (key.starts_with("latency:")) {
            line = rewrite(line, [&](double v) { return scaledLatencyNs(v, whatIf); });
            latency = true;
        }
        out << line << '\n';
    }
    if (!bandwidth || !latency)
        throw std::runtime_error("network file: no bandwidth or no latency line");
    return out.str();
}

} // namespace linkscope::core
