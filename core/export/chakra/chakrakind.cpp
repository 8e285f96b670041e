#include "export/chakra/chakrakind.h"

#include <array>
#include <utility>

namespace linkscope::core {

namespace {

// Each collective kind and the CollectiveCommType it is written as.
constexpr std::array<std::pair<CallKind, ChakraProtoMsg::CollectiveCommType>, 9> kCollectives = {{
    {CallKind::AllReduce, ChakraProtoMsg::ALL_REDUCE},
    {CallKind::Reduce, ChakraProtoMsg::REDUCE},
    {CallKind::AllGather, ChakraProtoMsg::ALL_GATHER},
    {CallKind::Gather, ChakraProtoMsg::GATHER},
    {CallKind::Scatter, ChakraProtoMsg::SCATTER},
    {CallKind::Broadcast, ChakraProtoMsg::BROADCAST},
    {CallKind::AllToAll, ChakraProtoMsg::ALL_TO_ALL},
    {CallKind::ReduceScatter, ChakraProtoMsg::REDUCE_SCATTER},
    {CallKind::Barrier, ChakraProtoMsg::BARRIER},
}};

} // namespace

ChakraCommNode chakraCommNodeOf(CallKind kind)
{
    switch (kind) {
    case CallKind::Send:
        return {ChakraProtoMsg::COMM_SEND_NODE, -1};
    case CallKind::Recv:
        return {ChakraProtoMsg::COMM_RECV_NODE, -1};
    case CallKind::Unknown:
        return {};
    default:
        for (const auto &[k, commType] : kCollectives)
            if (k == kind)
                return {ChakraProtoMsg::COMM_COLL_NODE, commType};
        return {};
    }
}

CallKind callKindFromChakraCommType(std::int64_t commType)
{
    if (commType == ChakraProtoMsg::REDUCE_SCATTER_BLOCK)
        return CallKind::ReduceScatter;
    for (const auto &[kind, c] : kCollectives)
        if (c == commType)
            return kind;
    return CallKind::Unknown;
}

CallKind callKindOfChakraNode(int nodeType, std::int64_t commType)
{
    switch (nodeType) {
    case ChakraProtoMsg::COMM_SEND_NODE:
        return CallKind::Send;
    case ChakraProtoMsg::COMM_RECV_NODE:
        return CallKind::Recv;
    case ChakraProtoMsg::COMM_COLL_NODE:
        return callKindFromChakraCommType(commType);
    default:
        return CallKind::Unknown;
    }
}

} // namespace linkscope::core
