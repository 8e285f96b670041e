#pragma once
// How a kind of call is written in a Chakra `.et`, and read back from one: the one mapping between
// CallKind (collective/callkind.h) and Chakra's node type and CollectiveCommType. The writers
// (chakraconverter, the astra-sim target) and the readers of an `.et` (the pre-flight check, the
// replay) go through it.

#include "collective/callkind.h"

#include "export/chakra/et_def.pb.h"

#include <cstdint>

namespace linkscope::core {

struct ChakraCommNode {
    ChakraProtoMsg::NodeType type = ChakraProtoMsg::COMP_NODE;
    std::int64_t commType = -1; // ChakraProtoMsg::CollectiveCommType of a COMM_COLL_NODE, else -1
};

// Send → COMM_SEND_NODE, Recv → COMM_RECV_NODE, a collective → COMM_COLL_NODE with its comm_type,
// Unknown → COMP_NODE (a communication op whose collective could not be told is replayed as compute).
ChakraCommNode chakraCommNodeOf(CallKind kind);

// A COMM_COLL_NODE's comm_type → kind (REDUCE_SCATTER_BLOCK reads as ReduceScatter); any other
// value → Unknown.
CallKind callKindFromChakraCommType(std::int64_t commType);
// A node's type (and comm_type, -1 when it has none) → kind: Send, Recv, a collective; Unknown for
// a node that is not communication or a collective without a known comm_type.
CallKind callKindOfChakraNode(int nodeType, std::int64_t commType);

} // namespace linkscope::core
