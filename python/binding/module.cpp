// linkscope._linkscope: the extension behind `import linkscope` (python/linkscope/__init__.py turns
// its tables into pandas DataFrames). Every call goes to core, as the commands' do; the GIL is
// released while traces are read, linked, exported and replayed.

#include "errors.h"
#include "job.h"
#include "pair.h"
#include "predict.h"

#include "export/targets.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace linkscope;
using namespace linkscope::python;

namespace {

// What predict() and opportunities() take, as the CLI reads it: the graph's inputs and how to export them.
PredictInputs predictInputs(const std::vector<std::string> &paths, const std::string &host, const std::string &device,
                            const std::string &commGroups, const std::string &network, const std::string &prefix,
                            std::int64_t npus, const std::string &policy, int jobs)
{
    PredictInputs in;
    in.paths = paths;
    in.host = host;
    in.device = device;
    in.commGroups = commGroups;
    in.network = network;
    in.prefix = prefix;
    in.npus = npus;
    if (!policy.empty()) {
        const auto p = core::policyFromName(policy);
        if (!p)
            throw std::invalid_argument("unknown policy '" + policy + "' (nesting, external-id, ev-idx)");
        in.job.link.policy = *p;
        in.job.policyGiven = true;
    }
    in.job.jobs = std::max(1, jobs);
    return in;
}

} // namespace

PYBIND11_MODULE(_linkscope, m)
{
    m.doc() = "Linkscope's core: pairs, jobs, predictions (use the linkscope package, which returns DataFrames)";
    m.attr("__version__") = LINKSCOPE_VERSION;
    registerErrors(m);

    m.def("export_targets", [] {
        py::list rows;
        for (const core::ExportTarget &t : core::exportTargets()) {
            py::dict d;
            d["name"] = t.name;
            d["title"] = t.title;
            d["help"] = t.help;
            d["default_suffix"] = t.defaultSuffix;
            d["needs_host"] = t.needsHost;
            rows.append(d);
        }
        return rows;
    });
    m.def("what_if_usage", [] { return std::string(core::kWhatIfOptionsUsage); });

    py::class_<Pair>(m, "Pair")
        .def(py::init([](const std::string &host, const std::string &device, const std::string &policy,
                         const std::string &sidecar, bool resolveOrder, bool forceCorrections, bool allowTruncated,
                         bool interThreadDeps, std::int64_t toleranceNs) {
                 PairOptions o;
                 o.host = host;
                 o.device = device;
                 o.policy = policy;
                 o.sidecar = sidecar;
                 o.resolveOrder = resolveOrder;
                 o.forceCorrections = forceCorrections;
                 o.allowTruncated = allowTruncated;
                 o.interThreadDeps = interThreadDeps;
                 o.toleranceNs = toleranceNs;
                 return std::make_unique<Pair>(o);
             }),
             py::arg("host"), py::arg("device"), py::arg("policy"), py::arg("sidecar"), py::arg("resolve_order"),
             py::arg("force_corrections"), py::arg("allow_truncated"), py::arg("inter_thread_deps"), py::arg("tolerance_ns"))
        .def("info", &Pair::info)
        .def("links", &Pair::linksTable)
        .def("findings", &Pair::findingsTable)
        .def("gpu_ops", &Pair::gpuOps)
        .def("cpu_ops", &Pair::cpuOps)
        .def("streams", &Pair::streams)
        .def("devices", &Pair::devices)
        .def("steps", &Pair::steps)
        .def("reparent", &Pair::reparent)
        .def("detach", &Pair::detach)
        .def("restore", &Pair::restore)
        .def("flag", &Pair::flag)
        .def("note", &Pair::note)
        .def("apply_suggestions", &Pair::applySuggestions)
        .def("undo", &Pair::undo)
        .def("corrections", &Pair::correctionsTable)
        .def("export", &Pair::exportTo)
        .def("predict", [](const Pair &p, const std::vector<std::string> &whatIf, std::size_t top) {
            PredictInputs in;
            in.host = p.opened().files.host;
            in.device = p.opened().files.device;
            in.job.link.policy = p.links().policy;
            in.job.policyGiven = true;
            return predictTables(in, whatIf, top);
        });

    py::class_<Job>(m, "Job")
        .def(py::init<const std::vector<std::string> &, const std::string &, int>(), py::arg("paths"), py::arg("policy"),
             py::arg("jobs"))
        .def("ranks", &Job::ranksTable)
        .def("findings", &Job::findingsTable)
        .def("collectives", &Job::collectivesTable)
        .def("report", &Job::reportJson)
        .def("stats", &Job::statsTables)
        .def("rank_files",
             [](const Job &j) {
                 py::list out;
                 for (const core::job::RankFiles &r : j.layout().ranks)
                     out.append(py::make_tuple(r.rank, r.host, r.device));
                 return out;
             })
        .def("errors", [](const Job &j) { return j.layout().errors; })
        .def("export", &Job::exportTo, py::arg("out_dir"), py::arg("prefix"), py::arg("target"))
        .def("predict", [](const Job &j, const std::vector<std::string> &whatIf, std::size_t top) {
            PredictInputs in;
            in.paths = j.paths();
            in.job.link = j.options().link;
            in.job.policyGiven = j.options().policyGiven;
            in.job.jobs = j.options().jobs;
            return predictTables(in, whatIf, top);
        });

    m.def(
        "predict",
        [](const std::vector<std::string> &paths, const std::string &host, const std::string &device,
           const std::string &commGroups, const std::string &network, const std::string &prefix, std::int64_t npus,
           const std::string &policy, int jobs, const std::vector<std::string> &whatIf, std::size_t top) {
            const PredictInputs in = predictInputs(paths, host, device, commGroups, network, prefix, npus, policy, jobs);
            return predictTables(in, whatIf, top);
        },
        py::arg("paths"), py::arg("host"), py::arg("device"), py::arg("comm_groups"), py::arg("network"), py::arg("prefix"),
        py::arg("npus"), py::arg("policy"), py::arg("jobs"), py::arg("what_if"), py::arg("top"));

    m.def(
        "opportunities",
        [](const std::vector<std::string> &paths, const std::string &host, const std::string &device,
           const std::string &commGroups, const std::string &network, const std::string &prefix, std::int64_t npus,
           const std::string &policy, int jobs, const std::string &model) {
            const PredictInputs in = predictInputs(paths, host, device, commGroups, network, prefix, npus, policy, jobs);
            return opportunitiesTable(in, model);
        },
        py::arg("paths"), py::arg("host"), py::arg("device"), py::arg("comm_groups"), py::arg("network"), py::arg("prefix"),
        py::arg("npus"), py::arg("policy"), py::arg("jobs"), py::arg("model"));
}
