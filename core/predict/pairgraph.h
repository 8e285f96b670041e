#pragma once
// The replay graph of one open pair, built in memory from its links (no file written): what the
// astra-sim target would export, as a SimJob of one rank — mirrored when the trace declares a larger
// job — with each node's source in the traces, so a path or a slack can be drawn on the timeline.
// Rebuilt after a correction (the links changed); a what-if only replays it (predict/replay.h).

#include "export/exportrequest.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"
#include "predict/simgraph.h"

#include <vector>

namespace linkscope::core::predict {

struct PairGraph {
    SimJob job;                        // one rank
    std::vector<EventIndex> eventOf;   // per node position of job.ranks[0]: the Kineto op or GPU op it stands for
    std::vector<HostNodeIndex> hostOf; // per node position: the host ET node (a GPU node: its parent's)
    ChakraStats stats;                 // what the export said (blocked time, dependencies)
    // The node standing for a device event, or kNoNode (predict/replay.h).
    std::uint32_t nodeOfEvent(EventIndex event) const;
    std::vector<std::uint32_t> byEvent; // device event → node position (kNoNode: none)
};

// `network` replaces run.sh's ring (50 GB/s, 500 ns) when given (a job's fitted network). Throws
// ExportError / LoadError when the pair cannot be exported (no host ET, an invalid graph).
PairGraph buildPairGraph(const HostTrace &host, const DeviceTrace &device, const LinkSet &links, const Network *network = nullptr,
                         ChakraOptions options = {});

} // namespace linkscope::core::predict
