// libFuzzer target: the inputs of `linkscope predict` (docs/prediction.md). The first byte picks the
// reader: a network file, a comm group file, one node's bytes for the fast decoder, or a whole .et
// whose graph is then replayed (one rank standing for 2, its collectives on the whole world). Each
// must either give a result or throw LoadError naming the input; a graph that loads must replay to an
// end (finished, or stuck with a reason) with a critical path that adds up to the step.
#include "export/chakra/etformat.h"
#include "predict/criticalpath.h"
#include "predict/replay.h"
#include "predict/simgraph.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace linkscope::core;
using namespace linkscope::core::predict;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    try {
        switch (data[0] % 4) {
        case 0: {
            const Network n = parseNetworkYaml(text, "fuzz.yml");
            if (!(n.bandwidthGBps > 0) || n.latencyNs < 0)
                std::abort();
            break;
        }
        case 1: {
            SimJob job;
            parseCommGroups(text, "fuzz.json", job);
            if (job.groupIds.size() != job.groups.size())
                std::abort();
            break;
        }
        case 2: {
            const std::vector<std::int64_t> groups;
            RankBuilder builder(0, "fuzz.et", groups);
            builder.addEncoded(text.data(), static_cast<int>(text.size()), 0);
            builder.finish();
            break;
        }
        default: {
            const ChakraTrace trace = parseChakraEt(text, "fuzz.et");
            if (trace.nodes.size() > 4096)
                return 0;
            SimJob job;
            job.ranks.push_back(buildRank(trace, 0, job.groupIds));
            job.mirrored = true;
            job.npus = 2;
            job.network.npus = 2;
            const ReplayResult r = replay(job);
            if (r.ranks.size() != 1 || (!r.ranks[0].finished && r.ranks[0].stuck.empty()))
                std::abort();
            const RankPath path = criticalPath(job, r, 0);
            if (r.ranks[0].finished && path.breakdown.total() != path.stepNs)
                std::abort();
            slack(job, r);
        }
        }
    } catch (const LoadError &) {
    }
    return 0;
}
