#pragma once
// Notices: when a linking policy cannot apply to a pair, say so and why — once for the trace, not
// once per GPU op. `linkscope link` prints them and the GUI shows them on open.

#include "link/chakracompare.h"
#include "link/linkset.h"
#include "model/devicetrace.h"
#include "model/hosttrace.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::core {

enum class NoticeKind : std::uint8_t {
    ExternalIdIsCorrelation, // External ids equal the correlations (older Kineto): the external-id rule has nothing to match
    GraphCapture, // launches captured into a CUDA/HIP graph (between *StreamBeginCapture and *StreamEndCapture) ran no GPU op
    NoCpuOps,     // runtime/driver calls but no CPU ops: no GPU op can get a CPU parent, by any policy or by hand
    PairMismatch, // the host ET and the Kineto trace do not belong together (other pid, most host ops unmatched)
};
std::string_view noticeKindName(NoticeKind kind); // "external_id_is_correlation", "graph_capture", ...

struct Notice {
    NoticeKind kind = NoticeKind::NoCpuOps;
    std::size_t count = 0;          // what the notice is about (links, launches, GPU ops, host ops)
    std::size_t total = 0;          // out of how many
    std::string message;            // for the user: what happened, why, and what it means
    std::vector<EventIndex> events; // the DeviceTrace events concerned (GPU ops, or captured launch calls), event order
};

// The notices for `links` (the pair as linked and corrected). With `comparison` (compareWithChakra
// of the same links) the External-id notice counts the Chakra 1.0 links that fall back.
std::vector<Notice> policyNotices(const DeviceTrace &trace, const HostTrace *host, const LinkSet &links,
                                  const ChakraComparison *comparison = nullptr);

} // namespace linkscope::core
