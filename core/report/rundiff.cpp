#include "report/rundiff.h"

#include "report/opname.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

namespace linkscope::core {

namespace {

struct OpSum {
    std::string category;
    std::set<std::string> names;
    std::uint64_t count = 0;
    Nanos total = 0, self = 0;
};

// By the absolute change of what "moved" ranks by, then of the total, then the larger total first.
bool byChange(const DiffOp &x, const DiffOp &y)
{
    const Nanos mx = std::llabs(x.moved().change()), my = std::llabs(y.moved().change());
    if (mx != my)
        return mx > my;
    const Nanos tx = std::llabs(x.total.change()), ty = std::llabs(y.total.change());
    if (tx != ty)
        return tx > ty;
    return std::max(x.total.a, x.total.b) > std::max(y.total.a, y.total.b);
}

// The ops of every compared rank of one run, summed by normalised name.
std::map<std::string, OpSum> sumOps(const std::vector<const TraceStats *> &ranks, bool gpu)
{
    std::map<std::string, OpSum> out;
    for (const TraceStats *s : ranks)
        for (const SummaryOpStat &op : gpu ? s->gpuOps : s->cpuOps) {
            OpSum &m = out[normalizeOpName(op.name)];
            if (m.category.empty())
                m.category = op.category;
            m.names.insert(op.name);
            m.count += op.count;
            m.total += op.total;
            m.self += gpu ? op.total : op.self;
        }
    return out;
}

std::vector<DiffOp> diffOps(const std::vector<const TraceStats *> &a, const std::vector<const TraceStats *> &b, bool gpu)
{
    const std::map<std::string, OpSum> sa = sumOps(a, gpu), sb = sumOps(b, gpu);
    std::map<std::string, DiffOp> merged;
    for (int side = 0; side < 2; ++side)
        for (const auto &[name, sum] : side ? sb : sa) {
            DiffOp &op = merged[name];
            if (op.name.empty()) {
                op.name = name;
                op.category = sum.category;
                op.gpu = gpu;
                op.total.inA = op.total.inB = op.self.inA = op.self.inB = false;
            }
            (side ? op.countB : op.countA) = sum.count;
            (side ? op.total.b : op.total.a) = sum.total;
            (side ? op.self.b : op.self.a) = sum.self;
            (side ? op.total.inB : op.total.inA) = true;
            (side ? op.self.inB : op.self.inA) = true;
            op.names = std::max(op.names, sum.names.size());
        }
    std::vector<DiffOp> out;
    out.reserve(merged.size());
    for (auto &[name, op] : merged)
        out.push_back(std::move(op));
    std::stable_sort(out.begin(), out.end(), byChange);
    return out;
}

DiffFigure figure(Nanos a, Nanos b) { return {a, b, true, true}; }

// A's streams in its order, each beside B's on the same GPU and stream id — else, when B has one
// stream of that id left on another GPU (one rank's trace against another rank's), beside that one —
// then the streams only B has.
void diffStreams(std::int64_t rank, const TraceStats &s, const TraceStats &t, std::vector<DiffStream> &out)
{
    std::vector<bool> usedB(t.streams.size(), false);
    std::vector<std::ptrdiff_t> match(s.streams.size(), -1);
    for (std::size_t i = 0; i < s.streams.size(); ++i)
        for (std::size_t k = 0; k < t.streams.size(); ++k)
            if (!usedB[k] && t.streams[k].device == s.streams[i].device && t.streams[k].stream == s.streams[i].stream) {
                usedB[k] = true;
                match[i] = static_cast<std::ptrdiff_t>(k);
                break;
            }
    for (std::size_t i = 0; i < s.streams.size(); ++i) {
        if (match[i] >= 0)
            continue;
        std::ptrdiff_t only = -1;
        for (std::size_t k = 0; k < t.streams.size(); ++k)
            if (!usedB[k] && t.streams[k].stream == s.streams[i].stream)
                only = only < 0 ? static_cast<std::ptrdiff_t>(k) : -2;
        if (only >= 0) {
            usedB[static_cast<std::size_t>(only)] = true;
            match[i] = only;
        }
    }
    for (std::size_t i = 0; i < s.streams.size(); ++i) {
        const SummaryStream &st = s.streams[i];
        DiffStream ds{rank, st.label, figure(st.busy, 0)};
        ds.busy.inB = match[i] >= 0;
        if (match[i] >= 0) {
            const SummaryStream &other = t.streams[static_cast<std::size_t>(match[i])];
            ds.busy.b = other.busy;
            if (other.device != st.device)
                ds.label += " / " + other.label;
        }
        out.push_back(std::move(ds));
    }
    for (std::size_t k = 0; k < t.streams.size(); ++k)
        if (!usedB[k]) {
            DiffStream ds{rank, t.streams[k].label, figure(0, t.streams[k].busy)};
            ds.busy.inA = false;
            out.push_back(std::move(ds));
        }
}

nlohmann::json figureJson(const DiffFigure &f)
{
    nlohmann::json j = {{"a_ns", f.a}, {"b_ns", f.b}, {"change_ns", f.change()}, {"change_pct", f.changePct()}};
    if (!f.inA)
        j["only_in"] = "b";
    else if (!f.inB)
        j["only_in"] = "a";
    return j;
}

nlohmann::json opJson(const DiffOp &op)
{
    nlohmann::json j = {{"name", op.name},
                        {"category", op.category},
                        {"names", op.names},
                        {"count_a", op.countA},
                        {"count_b", op.countB},
                        {"total_a_ns", op.total.a},
                        {"total_b_ns", op.total.b},
                        {"mean_a_ns", op.meanA()},
                        {"mean_b_ns", op.meanB()},
                        {"change_ns", op.total.change()},
                        {"change_pct", op.total.changePct()}};
    if (!op.gpu) {
        j["self_a_ns"] = op.self.a;
        j["self_b_ns"] = op.self.b;
        j["self_change_ns"] = op.self.change();
    }
    if (!op.total.inA)
        j["only_in"] = "b";
    else if (!op.total.inB)
        j["only_in"] = "a";
    return j;
}

std::size_t shown(std::size_t size, std::size_t top) { return top ? std::min(size, top) : size; }

} // namespace

double DiffFigure::changePct() const { return a != 0 ? 100.0 * double(b - a) / double(a) : 0.0; }

RunStep runStep(const TraceStats &stats)
{
    const StepTimes t = stats.stepTimes();
    if (t.count)
        return {t.mean, t.count};
    return {stats.span(), 0};
}

RunDiff diffRuns(const RunSide &a, const RunSide &b)
{
    if (a.job != b.job)
        throw std::invalid_argument("cannot compare a job with a single trace: " + (a.job ? a.label : b.label)
                                    + " is a job folder, " + (a.job ? b.label : a.label) + " one trace");
    RunDiff d;
    d.a = a.label;
    d.b = b.label;
    d.job = a.job;
    std::map<std::int64_t, const RunRank *> ra, rb;
    for (const RunRank &r : a.ranks)
        ra[a.job ? r.rank : -1] = &r;
    for (const RunRank &r : b.ranks)
        rb[b.job ? r.rank : -1] = &r;
    auto unreadable = [&](const RunSide &side, const RunRank &r) {
        d.warnings.push_back(side.label + (side.job ? ": rank " + std::to_string(r.rank) : std::string()) + " (" + r.file
                             + ") could not be read: " + r.error);
    };
    std::vector<const TraceStats *> sa, sb;
    for (const auto &[rank, x] : ra) {
        const auto it = rb.find(rank);
        if (it == rb.end()) {
            d.warnings.push_back("rank " + std::to_string(rank) + " is in " + a.label + " (" + x->file + ") but not in "
                                 + b.label);
            continue;
        }
        const RunRank *y = it->second;
        if (!x->stats || !y->stats) {
            if (!x->stats)
                unreadable(a, *x);
            if (!y->stats)
                unreadable(b, *y);
            continue;
        }
        sa.push_back(x->stats.get());
        sb.push_back(y->stats.get());
        const TraceStats &s = *x->stats, &t = *y->stats;
        DiffRank dr;
        dr.rank = rank;
        dr.stepA = runStep(s);
        dr.stepB = runStep(t);
        dr.step = figure(dr.stepA.ns, dr.stepB.ns);
        if ((dr.stepA.steps == 0) != (dr.stepB.steps == 0))
            d.warnings.push_back((rank < 0 ? std::string("the step") : "rank " + std::to_string(rank) + "'s step")
                                 + " compares ProfilerStep#N spans with a trace's extent: " + (dr.stepA.steps ? b.label : a.label)
                                 + " has no ProfilerStep#N");
        dr.gpuBusy = figure(s.gpuBusy(), t.gpuBusy());
        dr.comm = figure(s.comm(), t.comm());
        dr.exposedComm = figure(s.exposedComm(), t.exposedComm());
        d.ranks.push_back(dr);
        diffStreams(rank, s, t, d.streams);
    }
    for (const auto &[rank, y] : rb)
        if (!ra.count(rank))
            d.warnings.push_back("rank " + std::to_string(rank) + " is in " + b.label + " (" + y->file + ") but not in "
                                 + a.label);
    if (d.ranks.empty())
        throw std::invalid_argument("no rank of " + a.label + " can be compared with a rank of " + b.label
                                    + (d.warnings.empty() ? std::string() : ": " + d.warnings.front()));
    d.gpuOps = diffOps(sa, sb, true);
    d.cpuOps = diffOps(sa, sb, false);
    for (std::size_t i = 0; i < d.gpuOps.size(); ++i)
        d.moved.emplace_back(true, i);
    for (std::size_t i = 0; i < d.cpuOps.size(); ++i)
        d.moved.emplace_back(false, i);
    std::stable_sort(d.moved.begin(), d.moved.end(), [&](const auto &x, const auto &y) {
        return byChange(x.first ? d.gpuOps[x.second] : d.cpuOps[x.second], y.first ? d.gpuOps[y.second] : d.cpuOps[y.second]);
    });
    return d;
}

nlohmann::json runDiffJson(const RunDiff &d, std::size_t top)
{
    nlohmann::json ranks = nlohmann::json::array(), streams = nlohmann::json::array();
    for (const DiffRank &r : d.ranks) {
        nlohmann::json step = figureJson(r.step);
        step["steps_a"] = r.stepA.steps;
        step["steps_b"] = r.stepB.steps;
        ranks.push_back({{"rank", r.rank},
                         {"step", std::move(step)},
                         {"gpu_busy", figureJson(r.gpuBusy)},
                         {"comm", figureJson(r.comm)},
                         {"exposed_comm", figureJson(r.exposedComm)}});
    }
    for (const DiffStream &s : d.streams) {
        nlohmann::json j = figureJson(s.busy);
        j["rank"] = s.rank;
        j["label"] = s.label;
        streams.push_back(std::move(j));
    }
    nlohmann::json gpu = nlohmann::json::array(), cpu = nlohmann::json::array(), moved = nlohmann::json::array();
    for (std::size_t i = 0; i < shown(d.gpuOps.size(), top); ++i)
        gpu.push_back(opJson(d.gpuOps[i]));
    for (std::size_t i = 0; i < shown(d.cpuOps.size(), top); ++i)
        cpu.push_back(opJson(d.cpuOps[i]));
    for (std::size_t i = 0; i < shown(d.moved.size(), top); ++i) {
        const DiffOp &op = d.movedOp(i);
        nlohmann::json j = figureJson(op.moved());
        j["kind"] = op.gpu ? "gpu_op" : "cpu_op";
        j["measure"] = op.gpu ? "total" : "self";
        j["name"] = op.name;
        j["category"] = op.category;
        moved.push_back(std::move(j));
    }
    return {{"a", d.a},
            {"b", d.b},
            {"job", d.job},
            {"ranks", std::move(ranks)},
            {"streams", std::move(streams)},
            {"moved", std::move(moved)},
            {"gpu_ops", std::move(gpu)},
            {"cpu_ops", std::move(cpu)},
            {"warnings", d.warnings}};
}

} // namespace linkscope::core
