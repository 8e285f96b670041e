#include "report/findinggroups.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace linkscope::core {

namespace {

// policy_disagreement details: which rules differ from nesting, and whether their pick had finished
// when the GPU op was launched.
constexpr std::uint8_t kHeadDiffers = 1;
constexpr std::uint8_t kPreDiffers = 2;
constexpr std::uint8_t kHeadFinished = 4;
constexpr std::uint8_t kPreFinished = 8;

StringId nameOf(const DeviceTrace &trace, EventIndex event)
{
    return trace.contains(event) ? trace.event(event).name : StringPool::kMissing;
}

const GpuLink *linkOf(const Finding &f, const LinkSet &links, GpuLinkIndex *index = nullptr)
{
    if (f.subjectKind != SubjectKind::DeviceEvent || !f.event.in(links.gpuLinkOf.size()))
        return nullptr;
    const GpuLinkIndex l = links.gpuLinkOf[f.event];
    if (!l.in(links.gpuLinks.size()))
        return nullptr;
    if (index)
        *index = l;
    return &links.gpuLinks[l];
}

bool isOpAncestor(const LinkEvidence &evidence, EventIndex ancestor, EventIndex event)
{
    // Bounded: opParent is a forest, but a malformed one must not loop.
    auto parentOf = [&](EventIndex e) { return e.in(evidence.opParent.size()) ? evidence.opParent[e.get()] : kNone; };
    std::size_t steps = 0;
    for (EventIndex p = parentOf(event); p.valid() && steps < evidence.opParent.size(); p = parentOf(p), ++steps)
        if (p == ancestor)
            return true;
    return false;
}

FindingCause policyCause(FindingCause cause, const Finding &f, const DeviceTrace &trace, const LinkSet &links)
{
    GpuLinkIndex index;
    const GpuLink *link = linkOf(f, links, &index);
    if (!link)
        return cause;
    const EventIndex nesting = link->byPolicy[static_cast<std::size_t>(Policy::Nesting)];
    const EventIndex head = link->byPolicy[static_cast<std::size_t>(Policy::ExternalId)];
    const EventIndex pre = link->byPolicy[static_cast<std::size_t>(Policy::EvIdx)];
    const LaunchEvidence *launch = links.evidence && index.in(links.evidence->launches.size())
                                       ? &links.evidence->launches[index.get()]
                                       : nullptr;
    bool headDiffers = head != nesting;
    // As the diagnosis judges it: a user_annotation (nccl:*) nested in the External-id op refines it.
    if (headDiffers && launch && nesting.valid() && head.valid() && head == launch->externalOp && trace.contains(nesting)
        && trace.event(nesting).category == EventCategory::UserAnnotation && isOpAncestor(*links.evidence, head, nesting))
        headDiffers = false;
    const bool preDiffers = pre != nesting;
    auto finished = [&](EventIndex op) {
        return launch && launch->hasTime && trace.contains(op) && trace.event(op).end() <= launch->ts;
    };
    if (headDiffers) {
        cause.detail |= kHeadDiffers;
        cause.name = nameOf(trace, head);
        if (finished(head))
            cause.detail |= kHeadFinished;
    }
    if (preDiffers) {
        cause.detail |= kPreDiffers;
        (headDiffers ? cause.otherName : cause.name) = nameOf(trace, pre);
        if (finished(pre))
            cause.detail |= kPreFinished;
    }
    return cause;
}

std::string quoted(const DeviceTrace &trace, StringId name)
{
    if (name == StringPool::kMissing || name >= trace.strings.size())
        return {};
    return "'" + std::string(trace.strings.at(name)) + "'";
}

std::string plural(std::size_t count, std::string_view one, std::string_view many)
{
    return formatCount(count) + " " + std::string(count == 1 ? one : many);
}

std::string picks(std::string_view rule, bool finished, const std::string &op)
{
    if (op.empty())
        return std::string(rule) + " picks no op";
    return std::string(rule) + " picks " + (finished ? "a finished " : "") + op;
}

} // namespace

FindingCause causeOf(const Finding &f, const DeviceTrace &trace, const LinkSet &links)
{
    FindingCause cause;
    cause.severity = f.severity;
    cause.kind = f.kind;
    switch (f.kind) {
    case FindingKind::PolicyDisagreement:
        return policyCause(cause, f, trace, links);
    case FindingKind::OrphanGpuOp:
        if (const GpuLink *link = linkOf(f, links))
            cause.detail = static_cast<std::uint8_t>(link->orphan);
        return cause;
    case FindingKind::NcclParentIsRecordParamComms:
        cause.name = nameOf(trace, f.suggestedParent);
        return cause;
    case FindingKind::LaunchOutsideParent:
        if (const GpuLink *link = linkOf(f, links))
            cause.name = nameOf(trace, link->parent);
        return cause;
    default:
        return cause;
    }
}

std::string describeCause(const FindingCause &cause, std::size_t count, const DeviceTrace &trace)
{
    const std::string name = quoted(trace, cause.name);
    switch (cause.kind) {
    case FindingKind::PolicyDisagreement: {
        const bool head = cause.detail & kHeadDiffers;
        const bool pre = cause.detail & kPreDiffers;
        std::string text;
        const bool headFinished = cause.detail & kHeadFinished;
        if (head && pre && cause.name == cause.otherName && headFinished == bool(cause.detail & kPreFinished))
            text = (name.empty() ? std::string("external-id and ev-idx pick no op")
                                 : std::string("external-id and ev-idx pick ") + (headFinished ? "a finished " : "") + name);
        else if (head)
            text = picks("external-id", cause.detail & kHeadFinished, name);
        if (pre && text.find("ev-idx") == std::string::npos)
            text += (head ? " and " : "")
                    + picks("ev-idx", cause.detail & kPreFinished, head ? quoted(trace, cause.otherName) : name);
        if (text.empty())
            text = "the policies disagree";
        return text + " for " + plural(count, "GPU op", "GPU ops");
    }
    case FindingKind::OrphanGpuOp: {
        std::string why;
        switch (static_cast<OrphanReason>(cause.detail)) {
        case OrphanReason::NoCorrelation:
            why = "no usable correlation";
            break;
        case OrphanReason::NoLaunchEvent:
            why = "no launch in the trace has their correlation (launched outside the profiling window?)";
            break;
        case OrphanReason::NoEnclosingOp:
            why = "their launch is inside no CPU op";
            break;
        case OrphanReason::NoHostNode:
            why = "no enclosing CPU op has an ET node";
            break;
        case OrphanReason::Detached:
            why = "detached by hand";
            break;
        default:
            why = "no parent found";
            break;
        }
        return plural(count, "GPU op has", "GPU ops have") + " no parent: " + why;
    }
    case FindingKind::NcclParentIsRecordParamComms:
        return plural(count, "GPU op is", "GPU ops are") + " on record_param_comms while "
               + (name.empty() ? std::string("an nccl:* op") : name) + " encloses the launch";
    case FindingKind::GpuBeforeLaunch:
        return plural(count, "GPU op starts", "GPU ops start") + " before the launch";
    case FindingKind::LaunchOutsideParent:
        return plural(count, "launch is", "launches are") + " outside the parent" + (name.empty() ? std::string() : " " + name);
    case FindingKind::HostOpWithoutDevice:
        return plural(count, "ET op has", "ET ops have") + " no Kineto CPU op";
    case FindingKind::DeviceOpWithoutHost:
        return plural(count, "Kineto CPU op has", "Kineto CPU ops have") + " no ET node";
    case FindingKind::EtParentMissing:
        return plural(count, "ET node names", "ET nodes name") + " a parent that is not in the file";
    case FindingKind::DuplicateCorrelation:
        return plural(count, "correlation is", "correlations are") + " shared by several launches";
    case FindingKind::RfIdAbsent:
        return "the Kineto CPU ops carry no 'Record function id'"
               + (count > 1 ? " (" + formatCount(count) + " findings)" : std::string());
    }
    return plural(count, "finding", "findings");
}

std::vector<FindingGroup> groupFindings(const std::vector<FindingCause> &causes)
{
    std::vector<std::uint32_t> order(causes.size());
    std::iota(order.begin(), order.end(), 0u);
    // One stable sort by cause: each group's members stay ascending.
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return causes[a] < causes[b]; });
    std::vector<FindingGroup> groups;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i + 1;
        while (j < order.size() && causes[order[j]] == causes[order[i]])
            ++j;
        FindingGroup group;
        group.cause = causes[order[i]];
        group.members.assign(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(j));
        groups.push_back(std::move(group));
        i = j;
    }
    std::stable_sort(groups.begin(), groups.end(), [](const FindingGroup &a, const FindingGroup &b) {
        if (a.cause.severity != b.cause.severity)
            return a.cause.severity > b.cause.severity; // error first
        return a.members.front() < b.members.front();
    });
    return groups;
}

std::string formatCount(std::size_t count)
{
    std::string digits = std::to_string(count);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

namespace {

// The integer at `text[at...]` (an optional '-' then digits); its end, or `at` when there is none.
std::size_t parseInteger(std::string_view text, std::size_t at, Nanos &value)
{
    std::size_t end = at;
    if (end < text.size() && text[end] == '-')
        ++end;
    const std::size_t digits = end;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9')
        ++end;
    if (end == digits)
        return at;
    const auto result = std::from_chars(text.data() + at, text.data() + end, value);
    return result.ec == std::errc() ? end : at;
}

bool startsWithAt(std::string_view text, std::size_t at, std::string_view what) { return text.substr(at, what.size()) == what; }

} // namespace

std::string retimeMessage(std::string_view message, Nanos origin, const std::function<std::string(Nanos)> &time,
                          const std::function<std::string(Nanos)> &duration)
{
    std::string out;
    out.reserve(message.size());
    std::size_t i = 0;
    while (i < message.size()) {
        Nanos value = 0;
        // "at <t> ns"
        if (startsWithAt(message, i, "at ") && (i == 0 || message[i - 1] == ' ')) {
            const std::size_t end = parseInteger(message, i + 3, value);
            if (end != i + 3 && startsWithAt(message, end, " ns")) {
                out += "at ";
                out += time(value - origin);
                i = end + 3;
                continue;
            }
        }
        // "[<t>, <t>)"
        if (message[i] == '[') {
            Nanos second = 0;
            const std::size_t end = parseInteger(message, i + 1, value);
            if (end != i + 1 && startsWithAt(message, end, ", ")) {
                const std::size_t end2 = parseInteger(message, end + 2, second);
                if (end2 != end + 2 && startsWithAt(message, end2, ")")) {
                    out += '[';
                    out += time(value - origin);
                    out += ", ";
                    out += time(second - origin);
                    out += ')';
                    i = end2 + 1;
                    continue;
                }
            }
        }
        // "<d> ns before", at the start of a number only
        if ((message[i] >= '0' && message[i] <= '9') && (i == 0 || message[i - 1] == ' ')) {
            const std::size_t end = parseInteger(message, i, value);
            if (end != i && startsWithAt(message, end, " ns before")) {
                out += duration(value);
                out += " before";
                i = end + 10;
                continue;
            }
        }
        out += message[i++];
    }
    return out;
}

} // namespace linkscope::core
