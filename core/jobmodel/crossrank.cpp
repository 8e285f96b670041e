#include "jobmodel/crossrank.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <set>
#include <tuple>

namespace linkscope::core::job {

namespace {

// What differs between a call and the reference call at its position. Unknown fields never differ.
struct Diff {
    bool kind = false, dtype = false, elements = false, bytes = false, root = false;
    bool any() const { return kind || dtype || elements || bytes || root; }
};

Diff compare(const CollectiveCall &a, const CollectiveCall &b, bool p2p)
{
    Diff d;
    d.kind = !p2p && a.kind != b.kind;
    d.dtype = !a.dtype.empty() && !b.dtype.empty() && a.dtype != b.dtype;
    d.elements = a.elements >= 0 && b.elements >= 0 && a.elements != b.elements;
    // Bytes only where an element count is not known on both sides (count and dtype settle the size;
    // bytes read from tensor inputs may be counted differently from the collective's own metadata).
    d.bytes = (a.elements < 0 || b.elements < 0) && !d.dtype && a.bytes > 0 && b.bytes > 0 && a.bytes != b.bytes;
    d.root = !p2p && a.root >= 0 && b.root >= 0 && a.root != b.root;
    return d;
}

std::string describe(const CollectiveCall &c)
{
    std::string t(callKindName(c.kind));
    std::vector<std::string> parts;
    if (!c.dtype.empty())
        parts.push_back(c.dtype);
    if (c.elements >= 0)
        parts.push_back(std::to_string(c.elements) + " elements");
    else if (c.bytes > 0)
        parts.push_back(std::to_string(c.bytes) + " bytes");
    if (c.root >= 0)
        parts.push_back("root " + std::to_string(c.root));
    if (!parts.empty()) {
        t += " (";
        for (std::size_t i = 0; i < parts.size(); ++i)
            t += (i ? ", " : "") + parts[i];
        t += ")";
    }
    return t;
}

std::string diffText(const CollectiveCall &got, const CollectiveCall &want, const Diff &d)
{
    std::vector<std::string> parts;
    if (d.kind)
        parts.push_back("type " + std::string(callKindName(got.kind)) + " instead of " + std::string(callKindName(want.kind)));
    if (d.dtype)
        parts.push_back("dtype " + got.dtype + " instead of " + want.dtype);
    if (d.elements)
        parts.push_back("element count " + std::to_string(got.elements) + " instead of " + std::to_string(want.elements));
    if (d.bytes)
        parts.push_back("size " + std::to_string(got.bytes) + " bytes instead of " + std::to_string(want.bytes));
    if (d.root)
        parts.push_back("root " + std::to_string(got.root) + " instead of " + std::to_string(want.root));
    std::string t;
    for (std::size_t i = 0; i < parts.size(); ++i)
        t += (i ? ", " : "") + parts[i];
    return t;
}

std::string rankList(const std::vector<std::int64_t> &ranks)
{
    std::string t = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        t += (i ? ", " : "") + std::to_string(ranks[i]);
    return t;
}

// ---- alignment ------------------------------------------------------------------------------

enum class Op : std::uint8_t { Match, Subst, Del, Ins, Trans };
struct Step {
    Op op;
    std::size_t i; // reference index (Ins: the reference index the extra call precedes)
    std::size_t j; // sequence index (Del: the sequence index at which the reference call is missing)
};

constexpr std::uint32_t kGap = 2, kSubst = 2, kSubstKind = 3, kTrans = 2;
constexpr std::uint32_t kInf = std::numeric_limits<std::uint32_t>::max() / 4;
constexpr std::int64_t kBandSlack = 64;
// The most cells of the band one alignment may fill: one byte each (the costs are kept for three
// rows only), so 16 MiB and some 0.2 s. A normal job is far below it (100,000 calls in a band of
// 129 is 13 M); past it the sequences are too different to align call by call (30,000 calls against
// 1 would be 900 M cells): the alignment stops at the first difference (Alignment::diverged).
constexpr std::uint64_t kMaxAlignCells = std::uint64_t(1) << 24;

struct Alignment {
    std::vector<Step> steps;
    // Too different to align: from reference index `divergeAt` (sequence index `divergeAtSeq`) up to
    // the common suffix, no call is matched; `steps` holds the common prefix and suffix only.
    bool diverged = false;
    std::size_t divergeAt = 0, divergeAtSeq = 0;
    std::size_t refLeft = 0, seqLeft = 0; // calls of each side in the part not aligned
};

// Aligns s against ref (both as index lists into their calls), edit distance with adjacent
// transpositions, inside a band around the diagonal (common prefix and suffix are taken first).
Alignment align(const std::vector<const CollectiveCall *> &ref, const std::vector<const CollectiveCall *> &s, bool p2p)
{
    auto same = [&](const CollectiveCall *a, const CollectiveCall *b) { return !compare(*a, *b, p2p).any(); };
    Alignment out;
    std::vector<Step> &steps = out.steps;
    std::size_t pre = 0;
    while (pre < ref.size() && pre < s.size() && same(ref[pre], s[pre])) {
        steps.push_back({Op::Match, pre, pre});
        ++pre;
    }
    std::size_t suf = 0;
    while (suf < ref.size() - pre && suf < s.size() - pre && same(ref[ref.size() - 1 - suf], s[s.size() - 1 - suf]))
        ++suf;
    const std::size_t n = ref.size() - pre - suf, m = s.size() - pre - suf;
    const std::int64_t lo = std::min<std::int64_t>(0, static_cast<std::int64_t>(m) - static_cast<std::int64_t>(n)) - kBandSlack;
    const std::int64_t hi = std::max<std::int64_t>(0, static_cast<std::int64_t>(m) - static_cast<std::int64_t>(n)) + kBandSlack;
    const std::size_t width = static_cast<std::size_t>(hi - lo + 1);
    if (n == 0 || m == 0) {
        // One side has nothing left: every call of the other is missing or extra (what the band
        // would find, without its n × (n + 129) cells).
        for (std::size_t i = 0; i < n; ++i)
            steps.push_back({Op::Del, pre + i, pre});
        for (std::size_t j = 0; j < m; ++j)
            steps.push_back({Op::Ins, pre, pre + j});
    } else if (static_cast<std::uint64_t>(n + 1) * width > kMaxAlignCells) {
        out.diverged = true;
        out.divergeAt = pre;
        out.divergeAtSeq = pre;
        out.refLeft = n;
        out.seqLeft = m;
    } else {
        std::vector<Op> from((n + 1) * width, Op::Match);
        std::array<std::vector<std::uint32_t>, 3> rows; // costs of rows i, i-1, i-2 (by i % 3)
        for (auto &row : rows)
            row.assign(width, kInf);
        auto slot = [&](std::size_t i, std::size_t j) -> std::int64_t {
            const std::int64_t d = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
            return d < lo || d > hi ? -1 : d - lo;
        };
        auto get = [&](std::size_t i, std::size_t j) -> std::uint32_t {
            const std::int64_t k = slot(i, j);
            return k < 0 ? kInf : rows[i % 3][static_cast<std::size_t>(k)];
        };
        auto R = [&](std::size_t i) { return ref[pre + i]; };
        auto S = [&](std::size_t j) { return s[pre + j]; };
        for (std::size_t i = 0; i <= n; ++i) {
            std::vector<std::uint32_t> &row = rows[i % 3];
            std::fill(row.begin(), row.end(), kInf);
            const std::int64_t jlo = std::max<std::int64_t>(0, static_cast<std::int64_t>(i) + lo);
            const std::int64_t jhi = std::min<std::int64_t>(static_cast<std::int64_t>(m), static_cast<std::int64_t>(i) + hi);
            for (std::int64_t jj = jlo; jj <= jhi; ++jj) {
                const std::size_t j = static_cast<std::size_t>(jj);
                const std::size_t k = static_cast<std::size_t>(slot(i, j));
                if (i == 0 && j == 0) {
                    row[k] = 0;
                    continue;
                }
                std::uint32_t best = kInf;
                Op op = Op::Match;
                // Preference on equal cost: match/substitution, then a missing call, then an extra one.
                if (i > 0 && j > 0) {
                    const Diff d = compare(*S(j - 1), *R(i - 1), p2p);
                    const std::uint32_t c = get(i - 1, j - 1) + (d.any() ? (d.kind ? kSubstKind : kSubst) : 0);
                    if (c < best) {
                        best = c;
                        op = d.any() ? Op::Subst : Op::Match;
                    }
                }
                if (i > 1 && j > 1 && same(R(i - 2), S(j - 1)) && same(R(i - 1), S(j - 2)) && !same(R(i - 2), R(i - 1))) {
                    const std::uint32_t c = get(i - 2, j - 2) + kTrans;
                    if (c < best) {
                        best = c;
                        op = Op::Trans;
                    }
                }
                if (i > 0) {
                    const std::uint32_t c = get(i - 1, j) + kGap;
                    if (c < best) {
                        best = c;
                        op = Op::Del;
                    }
                }
                if (j > 0) {
                    const std::uint32_t c = get(i, j - 1) + kGap;
                    if (c < best) {
                        best = c;
                        op = Op::Ins;
                    }
                }
                row[k] = best;
                from[i * width + k] = op;
            }
        }
        std::vector<Step> middle;
        std::size_t i = n, j = m;
        while (i > 0 || j > 0) {
            const std::int64_t k = slot(i, j);
            const Op op = k < 0 ? (i > 0 ? Op::Del : Op::Ins) : from[i * width + static_cast<std::size_t>(k)];
            switch (op) {
            case Op::Match:
            case Op::Subst:
                middle.push_back({op, pre + i - 1, pre + j - 1});
                --i;
                --j;
                break;
            case Op::Trans:
                middle.push_back({op, pre + i - 2, pre + j - 2});
                i -= 2;
                j -= 2;
                break;
            case Op::Del:
                middle.push_back({op, pre + i - 1, pre + j});
                --i;
                break;
            case Op::Ins:
                middle.push_back({op, pre + i, pre + j - 1});
                --j;
                break;
            }
        }
        steps.insert(steps.end(), middle.rbegin(), middle.rend());
    }
    for (std::size_t k = 0; k < suf; ++k)
        steps.push_back({Op::Match, ref.size() - suf + k, s.size() - suf + k});
    return out;
}

std::uint64_t alignmentCost(const Alignment &a, const std::vector<const CollectiveCall *> &ref,
                            const std::vector<const CollectiveCall *> &s, bool p2p)
{
    std::uint64_t cost = a.diverged ? std::uint64_t(kGap) * (a.refLeft + a.seqLeft) : 0;
    for (const Step &st : a.steps) {
        switch (st.op) {
        case Op::Match:
            break;
        case Op::Subst:
            cost += compare(*s[st.j], *ref[st.i], p2p).kind ? kSubstKind : kSubst;
            break;
        case Op::Del:
        case Op::Ins:
            cost += kGap;
            break;
        case Op::Trans:
            cost += kTrans;
            break;
        }
    }
    return cost;
}

// Findings of one kind at one place, before ranks that deviate alike are put together.
struct Local {
    std::string kind;
    std::string group;
    std::int64_t index;
    std::string key;     // what must be equal for two ranks to share the finding
    std::string message; // with "{ranks}" where the rank list goes
    std::int64_t rank;
};

void addLocal(std::vector<Local> &locals, Local l) { locals.push_back(std::move(l)); }

std::vector<JobFinding> collect(std::vector<Local> &locals)
{
    std::map<std::tuple<std::string, std::string, std::int64_t, std::string>, std::pair<std::string, std::vector<std::int64_t>>>
        byKey;
    for (Local &l : locals) {
        auto &entry = byKey[{l.group, l.kind, l.index, l.key}];
        if (entry.second.empty())
            entry.first = l.message;
        entry.second.push_back(l.rank);
    }
    std::vector<JobFinding> out;
    for (auto &[key, entry] : byKey) {
        JobFinding f;
        f.kind = std::get<1>(key);
        f.processGroup = std::get<0>(key);
        f.index = std::get<2>(key);
        f.ranks = entry.second;
        std::sort(f.ranks.begin(), f.ranks.end());
        f.ranks.erase(std::unique(f.ranks.begin(), f.ranks.end()), f.ranks.end());
        f.message = entry.first;
        const std::string placeholder = "{ranks}";
        const std::string list = rankList(f.ranks);
        for (std::size_t p = f.message.find(placeholder); p != std::string::npos;
             p = f.message.find(placeholder, p + list.size()))
            f.message.replace(p, placeholder.size(), list);
        out.push_back(std::move(f));
    }
    return out;
}

std::string where(const CollectiveCall &c) { return c.where.empty() ? std::string() : " (" + c.where + ")"; }

} // namespace

std::string canonicalDtype(std::string_view dtype)
{
    std::string t;
    for (char c : dtype)
        t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (t.rfind("c10::", 0) == 0)
        t = t.substr(5);
    if (t.rfind("torch.", 0) == 0)
        t = t.substr(6);
    static const std::map<std::string, std::string, std::less<>> names = {
        {"float", "float32"}, {"float32", "float32"},   {"f32", "float32"},   {"half", "float16"},   {"float16", "float16"},
        {"f16", "float16"},   {"bfloat16", "bfloat16"}, {"bf16", "bfloat16"}, {"double", "float64"}, {"float64", "float64"},
        {"f64", "float64"},   {"int", "int32"},         {"int32", "int32"},   {"i32", "int32"},      {"int32_t", "int32"},
        {"long", "int64"},    {"int64", "int64"},       {"i64", "int64"},     {"int64_t", "int64"},  {"byte", "uint8"},
        {"uint8", "uint8"},   {"u8", "uint8"},          {"uint8_t", "uint8"}, {"char", "int8"},      {"int8", "int8"},
        {"i8", "int8"},       {"int8_t", "int8"},       {"bool", "bool"},
    };
    if (auto it = names.find(t); it != names.end())
        return it->second;
    return t;
}

std::string_view severityName(Severity s)
{
    switch (s) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Info:
        return "info";
    }
    return "error";
}

nlohmann::json JobFinding::toJson() const
{
    nlohmann::json j = {{"kind", kind}, {"severity", std::string(severityName(severity))}};
    j["process_group"] = processGroup.empty() ? nlohmann::json(nullptr) : nlohmann::json(processGroup);
    j["index"] = index >= 0 ? nlohmann::json(index) : nlohmann::json(nullptr);
    j["ranks"] = ranks;
    j["message"] = message;
    if (!rankRanges.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const RankRange &r : rankRanges)
            list.push_back({r.first, r.last});
        j["rank_ranges"] = std::move(list);
    }
    if (count != 1)
        j["count"] = count;
    return j;
}

JobFinding JobFinding::fromJson(const nlohmann::json &j)
{
    JobFinding f;
    f.kind = j.at("kind").get<std::string>();
    const std::string sev = j.value("severity", std::string("error"));
    f.severity = sev == "warning" ? Severity::Warning : sev == "info" ? Severity::Info : Severity::Error;
    if (j.contains("process_group") && j["process_group"].is_string())
        f.processGroup = j["process_group"].get<std::string>();
    if (j.contains("index") && j["index"].is_number_integer())
        f.index = j["index"].get<std::int64_t>();
    f.ranks = j.value("ranks", std::vector<std::int64_t>());
    f.message = j.value("message", std::string());
    if (auto it = j.find("rank_ranges"); it != j.end() && it->is_array())
        for (const auto &r : *it)
            if (r.is_array() && r.size() == 2 && r[0].is_number_integer() && r[1].is_number_integer())
                f.rankRanges.push_back({r[0].get<std::int64_t>(), r[1].get<std::int64_t>()});
    if (auto it = j.find("count"); it != j.end() && it->is_number_unsigned())
        f.count = it->get<std::size_t>();
    return f;
}

void sortFindings(std::vector<JobFinding> &findings)
{
    std::sort(findings.begin(), findings.end(), [](const JobFinding &a, const JobFinding &b) {
        const std::int64_t ga = a.processGroup.empty() ? -1 : processGroupId(a.processGroup);
        const std::int64_t gb = b.processGroup.empty() ? -1 : processGroupId(b.processGroup);
        return std::tie(ga, a.processGroup, a.index, a.kind, a.ranks, a.message)
               < std::tie(gb, b.processGroup, b.index, b.kind, b.ranks, b.message);
    });
}

namespace {

// The cross-rank check of one job's calls (checkCollectives): per process group, the members'
// sequences aligned against a reference sequence, then its point-to-point channels.
class CollectiveChecker {
public:
    explicit CollectiveChecker(const CheckInput &input) : input_(input)
    {
        for (const RankCalls &r : input.ranks)
            present_[r.rank] = &r;
    }

    CheckResult run()
    {
        for (const std::string &name : orderedGroups()) {
            const std::set<std::int64_t> members = membersOf(name);
            GroupAlignment ga;
            ga.name = name;
            std::map<std::int64_t, std::vector<const CollectiveCall *>> seq = sequencesOf(name, members, ga);
            const std::int64_t refRank = referenceRank(seq, members);
            alignMembers(name, members, seq, refRank, ga);
            result_.groups.push_back(std::move(ga));
            if (hasP2P_[name])
                checkPointToPoint(name);
        }
        result_.findings = collect(locals_);
        sortFindings(result_.findings);
        return std::move(result_);
    }

private:
    const std::string &groupOf(const CollectiveCall &c) const
    {
        return c.processGroup.empty() ? input_.defaultGroup : c.processGroup;
    }

    // Every group named by a declaration or by a call, by id.
    std::vector<std::string> orderedGroups()
    {
        std::set<std::string> declared;
        for (const ProcessGroup &g : input_.groups) {
            declared.insert(g.name);
            configured_[g.name].insert(g.ranks.begin(), g.ranks.end());
        }
        for (const auto &[rank, calls] : present_)
            for (const CollectiveCall &c : calls->calls) {
                if (isP2P(c.kind))
                    hasP2P_[groupOf(c)] = true;
                else
                    issuers_[groupOf(c)].insert(rank);
            }
        std::set<std::string> names(declared);
        for (const auto &[name, ranks] : issuers_)
            names.insert(name);
        for (const auto &[name, any] : hasP2P_)
            names.insert(name);
        std::vector<std::string> ordered(names.begin(), names.end());
        std::sort(ordered.begin(), ordered.end(), [](const std::string &a, const std::string &b) {
            const auto ia = processGroupId(a), ib = processGroupId(b);
            return ia != ib ? ia < ib : a < b;
        });
        return ordered;
    }

    std::set<std::int64_t> membersOf(const std::string &name)
    {
        // Members: declared (or, with no declaration of its ranks, the issuers) that were read,
        // and any rank that was read and issued on the group.
        std::set<std::int64_t> members;
        for (std::int64_t r : configured_[name])
            if (present_.count(r))
                members.insert(r);
        for (std::int64_t r : issuers_[name])
            members.insert(r);
        return members;
    }

    // Each member's calls on the group (not P2P), and their indices in its call list.
    std::map<std::int64_t, std::vector<const CollectiveCall *>> sequencesOf(const std::string &name,
                                                                            const std::set<std::int64_t> &members,
                                                                            GroupAlignment &ga)
    {
        std::map<std::int64_t, std::vector<const CollectiveCall *>> seq;
        for (std::int64_t r : members) {
            auto &v = seq[r];
            auto &idx = ga.callIndex[r];
            const auto &calls = present_[r]->calls;
            for (std::size_t i = 0; i < calls.size(); ++i)
                if (!isP2P(calls[i].kind) && groupOf(calls[i]) == name) {
                    v.push_back(&calls[i]);
                    idx.push_back(i);
                }
        }
        return seq;
    }

    // The reference: the sequence a majority issued exactly; without one, the sequence closest to
    // all the others (least total alignment cost, each distinct sequence weighted by how many
    // issued it); then the one more ranks issued; then the longest; then the lowest rank's.
    static std::int64_t referenceRank(std::map<std::int64_t, std::vector<const CollectiveCall *>> &seq,
                                      const std::set<std::int64_t> &members)
    {
        std::map<std::string, std::vector<std::int64_t>> classes;
        for (const auto &[r, v] : seq) {
            std::string key;
            for (const CollectiveCall *c : v)
                key += std::string(callKindName(c->kind)) + '|' + c->dtype + '|' + std::to_string(c->elements) + '|'
                       + std::to_string(c->bytes) + '|' + std::to_string(c->root) + ';';
            classes[key].push_back(r);
        }
        std::vector<const std::vector<std::int64_t> *> byCount;
        for (const auto &[key, ranks] : classes)
            byCount.push_back(&ranks);
        std::stable_sort(byCount.begin(), byCount.end(), [](const auto *a, const auto *b) { return a->size() > b->size(); });
        std::int64_t refRank = -1;
        if (!byCount.empty()) {
            if (byCount.front()->size() * 2 > members.size() || byCount.size() == 1) {
                refRank = byCount.front()->front();
            } else {
                constexpr std::size_t kCandidates = 16;
                std::uint64_t bestCost = std::numeric_limits<std::uint64_t>::max();
                std::size_t bestCount = 0, bestLength = 0;
                for (std::size_t c = 0; c < byCount.size() && c < kCandidates; ++c) {
                    const auto &cand = seq[byCount[c]->front()];
                    std::uint64_t total = 0;
                    for (const auto *other : byCount)
                        if (other != byCount[c])
                            total += other->size()
                                     * alignmentCost(align(cand, seq[other->front()], false), cand, seq[other->front()], false);
                    const std::size_t count = byCount[c]->size(), length = cand.size();
                    const std::int64_t low = byCount[c]->front();
                    if (refRank < 0 || total < bestCost || (total == bestCost && count > bestCount)
                        || (total == bestCost && count == bestCount && length > bestLength)
                        || (total == bestCost && count == bestCount && length == bestLength && low < refRank)) {
                        refRank = low;
                        bestCost = total;
                        bestCount = count;
                        bestLength = length;
                    }
                }
            }
        }
        return refRank;
    }

    // Each member's sequence against the reference: its calls' positions, and what differs.
    void alignMembers(const std::string &name, const std::set<std::int64_t> &members,
                      std::map<std::int64_t, std::vector<const CollectiveCall *>> &seq, std::int64_t refRank, GroupAlignment &ga)
    {
        std::vector<Local> &locals = locals_;
        const std::vector<const CollectiveCall *> empty;
        const auto &ref = refRank >= 0 ? seq[refRank] : empty;
        ga.referenceRank = refRank;
        ga.length = ref.size();

        for (std::int64_t r : members) {
            const auto &s = seq[r];
            if (s.empty() && !ref.empty()) {
                // Not one "missing" per collective: the rank is not taking part in the group at all.
                addLocal(locals, {"rank_absent_from_group", name, -1, "",
                                  "{ranks} issued none of the " + std::to_string(ref.size()) + " collectives of process group "
                                      + name + " that the other members issued (first: " + describe(*ref.front()) + ")",
                                  r});
                continue;
            }
            ga.members.push_back(r);
            std::vector<std::int64_t> &pos = ga.positionOf[r];
            pos.assign(s.size(), -1);
            if (r == refRank) {
                for (std::size_t i = 0; i < s.size(); ++i)
                    pos[i] = static_cast<std::int64_t>(i);
                continue;
            }
            const Alignment alignment = align(ref, s, false);
            if (alignment.diverged) {
                const std::size_t at = alignment.divergeAt, atSeq = alignment.divergeAtSeq;
                addLocal(locals, {"collectives_diverge", name, static_cast<std::int64_t>(at), std::to_string(alignment.seqLeft),
                                  "{ranks} diverge from collective " + std::to_string(at) + " of process group " + name
                                      + " on: " + std::to_string(alignment.seqLeft) + " call(s) where the others issued "
                                      + std::to_string(alignment.refLeft) + ", too different to align call by call (first "
                                      + describe(*s[atSeq]) + " instead of " + describe(*ref[at]) + ")" + where(*s[atSeq]),
                                  r});
            }
            for (const Step &st : alignment.steps) {
                const std::int64_t i = static_cast<std::int64_t>(st.i);
                switch (st.op) {
                case Op::Match:
                    pos[st.j] = i;
                    break;
                case Op::Subst: {
                    pos[st.j] = i;
                    const Diff d = compare(*s[st.j], *ref[st.i], false);
                    const std::string what = diffText(*s[st.j], *ref[st.i], d);
                    addLocal(locals, {"collective_mismatch", name, i, what,
                                      "{ranks} issued collective " + std::to_string(i) + " of process group " + name + " with "
                                          + what + " (the others: " + describe(*ref[st.i]) + ")" + where(*s[st.j]),
                                      r});
                    break;
                }
                case Op::Del:
                    addLocal(locals, {"missing_collective", name, i, "",
                                      "{ranks} did not issue collective " + std::to_string(i) + " of process group " + name + ", "
                                          + describe(*ref[st.i]) + ", which the other members issued" + where(*ref[st.i])
                                          + " on rank " + std::to_string(refRank),
                                      r});
                    break;
                case Op::Ins:
                    addLocal(locals,
                             {"extra_collective", name, i, describe(*s[st.j]),
                              "{ranks} issued " + describe(*s[st.j]) + " on process group " + name + " before its collective "
                                  + std::to_string(i) + ", which no other member issued" + where(*s[st.j]),
                              r});
                    break;
                case Op::Trans:
                    pos[st.j] = i + 1;
                    pos[st.j + 1] = i;
                    addLocal(locals, {"collectives_swapped", name, i, "",
                                      "{ranks} issued collectives " + std::to_string(i) + " and " + std::to_string(i + 1)
                                          + " of process group " + name + " in the other order: " + describe(*s[st.j])
                                          + " before " + describe(*s[st.j + 1]) + where(*s[st.j]),
                                      r});
                    break;
                }
            }
        }
    }

    // Per (sender, receiver) channel on the group, sends against receives in order.
    void checkPointToPoint(const std::string &name)
    {
        std::vector<Local> &locals = locals_;
        const auto &present = present_;
        std::map<std::pair<std::int64_t, std::int64_t>,
                 std::pair<std::vector<const CollectiveCall *>, std::vector<const CollectiveCall *>>>
            channels;
        for (const auto &[rank, calls] : present)
            for (const CollectiveCall &c : calls->calls) {
                if (!isP2P(c.kind) || groupOf(c) != name || c.peer < 0)
                    continue;
                if (c.kind == CallKind::Send)
                    channels[{rank, c.peer}].first.push_back(&c);
                else
                    channels[{c.peer, rank}].second.push_back(&c);
            }
        for (const auto &[key, sides] : channels) {
            const auto [src, dst] = key;
            if (!present.count(src) || !present.count(dst))
                continue; // a rank that was not read is reported once, as missing
            const std::string channel = "from rank " + std::to_string(src) + " to rank " + std::to_string(dst)
                                        + " on process group " + name;
            const Alignment alignment = align(sides.first, sides.second, true);
            if (alignment.diverged) {
                const std::size_t at = alignment.divergeAt;
                addLocal(locals,
                         {"p2p_diverge", name, static_cast<std::int64_t>(at), channel,
                          "sends " + channel + " diverge from send " + std::to_string(at) + " on: "
                              + std::to_string(alignment.refLeft) + " send(s) against " + std::to_string(alignment.seqLeft)
                              + " receive(s), too different to pair one by one" + where(*sides.first[at]) + " ({ranks})",
                          src});
                locals.back().key += "|pair";
                addLocal(locals, {"p2p_diverge", name, static_cast<std::int64_t>(at), channel + "|pair", "", dst});
            }
            for (const Step &st : alignment.steps) {
                const std::int64_t i = static_cast<std::int64_t>(st.i);
                switch (st.op) {
                case Op::Match:
                    break;
                case Op::Subst: {
                    const Diff d = compare(*sides.second[st.j], *sides.first[st.i], true);
                    addLocal(locals, {"p2p_size_mismatch", name, i, channel,
                                      "send " + std::to_string(i) + " " + channel + " is " + describe(*sides.first[st.i])
                                          + " but its receive expects " + diffText(*sides.second[st.j], *sides.first[st.i], d)
                                          + where(*sides.second[st.j]) + " ({ranks})",
                                      src});
                    locals.back().key += "|pair";
                    addLocal(locals, {"p2p_size_mismatch", name, i, channel + "|pair", "", dst});
                    break;
                }
                case Op::Del:
                    addLocal(locals, {"unpaired_send", name, i, channel,
                                      "send " + std::to_string(i) + " " + channel + ", " + describe(*sides.first[st.i])
                                          + ", has no matching receive on rank " + std::to_string(dst) + where(*sides.first[st.i])
                                          + " ({ranks})",
                                      src});
                    break;
                case Op::Ins:
                    addLocal(locals, {"unpaired_recv", name, static_cast<std::int64_t>(st.j), channel,
                                      "receive " + std::to_string(st.j) + " " + channel + ", " + describe(*sides.second[st.j])
                                          + ", has no matching send on rank " + std::to_string(src) + where(*sides.second[st.j])
                                          + " ({ranks})",
                                      dst});
                    break;
                case Op::Trans:
                    addLocal(locals, {"p2p_order", name, i, channel,
                                      "sends " + std::to_string(i) + " and " + std::to_string(i + 1) + " " + channel
                                          + " are received in the other order" + where(*sides.second[st.j]) + " ({ranks})",
                                      src});
                    locals.back().key += "|pair";
                    addLocal(locals, {"p2p_order", name, i, channel + "|pair", "", dst});
                    break;
                }
            }
        }
    }

    const CheckInput &input_;
    std::map<std::int64_t, const RankCalls *> present_;
    std::map<std::string, std::set<std::int64_t>> configured_; // declared groups' ranks
    std::map<std::string, std::set<std::int64_t>> issuers_;    // ranks that issued non-P2P calls on a group
    std::map<std::string, bool> hasP2P_;
    std::vector<Local> locals_;
    CheckResult result_;
};

} // namespace

CheckResult checkCollectives(const CheckInput &input) { return CollectiveChecker(input).run(); }

} // namespace linkscope::core::job
