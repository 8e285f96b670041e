// The text and the CSV of `linkscope diff` (report/rundiff.h).
#include "report/rundiff.h"
#include "report/summaryreport.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace linkscope::core {

namespace {

std::string signedDuration(Nanos ns) { return (ns > 0 ? "+" : ns == 0 ? "±" : "") + durationText(ns); }

std::string pad(std::string s, std::size_t width, bool right = true)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string change(const DiffFigure &f)
{
    char pct[32] = "";
    if (!f.inA)
        std::snprintf(pct, sizeof pct, " (only in B)");
    else if (!f.inB)
        std::snprintf(pct, sizeof pct, " (only in A)");
    else if (f.a != 0)
        std::snprintf(pct, sizeof pct, " (%+.2f%%)", f.changePct());
    return signedDuration(f.change()) + pct;
}

// "A → B  change" in columns.
std::string row(const DiffFigure &f)
{
    return pad(durationText(f.a), 12) + " → " + pad(durationText(f.b), 12) + "  " + change(f);
}

std::string rankName(std::int64_t rank) { return rank < 0 ? std::string("trace") : "rank " + std::to_string(rank); }

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string q = "\"";
    for (const char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string pctField(const DiffFigure &f)
{
    if (!f.inA || !f.inB || f.a == 0)
        return {};
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", f.changePct());
    return text;
}

} // namespace

std::string runDiffText(const RunDiff &d, std::size_t top)
{
    std::ostringstream out;
    out << "A: " << d.a << "\nB: " << d.b << '\n';
    out << "\nstep (the mean ProfilerStep#N, else the trace's extent)\n";
    for (const DiffRank &r : d.ranks) {
        out << "  " << pad(rankName(r.rank), 9, false) << row(r.step);
        if (r.stepA.steps || r.stepB.steps)
            out << "  [" << r.stepA.steps << " → " << r.stepB.steps << " steps]";
        else
            out << "  [extent]";
        out << '\n';
    }
    out << "\nGPU busy per stream\n";
    for (const DiffStream &s : d.streams)
        out << "  " << pad((d.job ? rankName(s.rank) + " " : std::string()) + s.label, 26, false) << row(s.busy) << '\n';
    out << "\ncommunication (collective kernels) and exposed communication (not hidden by computation)\n";
    for (const DiffRank &r : d.ranks) {
        out << "  " << pad(rankName(r.rank), 9, false) << "comm    " << row(r.comm) << '\n';
        out << "  " << pad("", 9, false) << "exposed " << row(r.exposedComm) << '\n';
    }
    const std::size_t movedShown = top ? std::min(top, d.moved.size()) : d.moved.size();
    out << "\nwhat moved most (GPU op families by total time, CPU ops by self time" << (d.job ? ", summed over the ranks" : "")
        << ")\n";
    for (std::size_t i = 0; i < movedShown; ++i) {
        const DiffOp &op = d.movedOp(i);
        char place[32];
        std::snprintf(place, sizeof place, "%3zu. ", i + 1);
        out << "  " << place << pad(change(op.moved()), 26, false) << (op.gpu ? "GPU " : "CPU ") << op.name << "  ("
            << durationText(op.moved().a) << " → " << durationText(op.moved().b) << ")\n";
    }
    auto ops = [&](const char *title, const std::vector<DiffOp> &list) {
        const std::size_t n = top ? std::min(top, list.size()) : list.size();
        out << '\n' << title << " (" << n << " of " << list.size() << ", by |change|): count A → B, total A → B, mean A → B\n";
        for (std::size_t i = 0; i < n; ++i) {
            const DiffOp &op = list[i];
            out << "  " << op.name << (op.names > 1 ? "  [" + std::to_string(op.names) + " names]" : std::string()) << '\n';
            out << "      " << op.countA << " → " << op.countB << ", " << durationText(op.total.a) << " → "
                << durationText(op.total.b) << " (" << change(op.total) << "), mean " << durationText(op.meanA()) << " → "
                << durationText(op.meanB());
            if (!op.gpu)
                out << ", self " << durationText(op.self.a) << " → " << durationText(op.self.b);
            out << '\n';
        }
    };
    ops("GPU ops by family", d.gpuOps);
    ops("CPU ops", d.cpuOps);
    return out.str(); // the warnings go to standard error (the command), not into the report
}

std::string runDiffCsv(const RunDiff &d)
{
    std::ostringstream out;
    out << "section,rank,name,category,count_a,count_b,a_ns,b_ns,change_ns,change_pct,self_a_ns,self_b_ns\n";
    auto line = [&](const char *section, const std::string &rank, const std::string &name, const std::string &category,
                    const std::string &countA, const std::string &countB, const DiffFigure &f, const std::string &selfA,
                    const std::string &selfB) {
        out << section << ',' << rank << ',' << csvField(name) << ',' << csvField(category) << ',' << countA << ',' << countB
            << ',' << f.a << ',' << f.b << ',' << f.change() << ',' << pctField(f) << ',' << selfA << ',' << selfB << '\n';
    };
    for (const DiffRank &r : d.ranks) {
        const std::string rank = r.rank < 0 ? std::string() : std::to_string(r.rank);
        line("step", rank, "", "", std::to_string(r.stepA.steps), std::to_string(r.stepB.steps), r.step, "", "");
        line("gpu_busy", rank, "", "", "", "", r.gpuBusy, "", "");
        line("comm", rank, "", "", "", "", r.comm, "", "");
        line("exposed_comm", rank, "", "", "", "", r.exposedComm, "", "");
    }
    for (const DiffStream &s : d.streams)
        line("stream", s.rank < 0 ? std::string() : std::to_string(s.rank), s.label, "", "", "", s.busy, "", "");
    for (const DiffOp &op : d.gpuOps)
        line("gpu_op", "", op.name, op.category, std::to_string(op.countA), std::to_string(op.countB), op.total, "", "");
    for (const DiffOp &op : d.cpuOps)
        line("cpu_op", "", op.name, op.category, std::to_string(op.countA), std::to_string(op.countB), op.total,
             std::to_string(op.self.a), std::to_string(op.self.b));
    for (std::size_t i = 0; i < d.moved.size(); ++i) {
        const DiffOp &op = d.movedOp(i);
        line("moved", std::to_string(i + 1), op.name, op.gpu ? "gpu_op" : "cpu_op", std::to_string(op.countA),
             std::to_string(op.countB), op.moved(), "", "");
    }
    return out.str();
}

} // namespace linkscope::core
