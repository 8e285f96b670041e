#include "predict/rankstream.h"

#include "model/common.h"

#include <limits>

namespace linkscope::core::predict {

int etLengthPrefix(const char *p, const char *end, std::uint64_t &value)
{
    value = 0;
    for (int i = 0; i < 10; ++i) {
        if (p + i >= end)
            return 0;
        const auto byte = static_cast<unsigned char>(p[i]);
        value |= std::uint64_t(byte & 0x7f) << (7 * i);
        if (byte < 0x80)
            return i + 1;
    }
    return -1;
}

RankStream::RankStream(std::int64_t rank, std::string path)
    : path_(std::move(path)), builder_(std::make_unique<RankBuilder>(rank, path_, &learned_))
{
}

void RankStream::message(const char *bytes, std::size_t size, std::size_t offset)
{
    if (!metadata_) {
        metadata_ = true; // the export's own GlobalMetadata: nothing the replay reads
        return;
    }
    if (size == 0)
        throw LoadError(path_, offset, "an empty node message in the exported .et");
    builder_->addEncoded(bytes, static_cast<int>(size), offset);
}

std::size_t RankStream::frame(const char *data, std::size_t size, std::size_t base)
{
    std::size_t pos = 0;
    while (pos < size) {
        std::uint64_t length = 0;
        const int prefix = etLengthPrefix(data + pos, data + size, length);
        if (prefix < 0 || length > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            throw LoadError(path_, base + pos, "the exported .et has a message length that is not one");
        if (prefix == 0 || length > size - pos - static_cast<std::size_t>(prefix))
            break; // continues in the next call
        message(data + pos + prefix, length, base + pos);
        pos += static_cast<std::size_t>(prefix) + length;
    }
    return pos;
}

void RankStream::feed(std::string_view bytes)
{
    if (!carry_.empty()) {
        carry_.append(bytes);
        const std::size_t used = frame(carry_.data(), carry_.size(), offset_);
        offset_ += used;
        carry_.erase(0, used);
        return;
    }
    const std::size_t used = frame(bytes.data(), bytes.size(), offset_);
    offset_ += used;
    carry_.assign(bytes.substr(used));
}

SimRank RankStream::finish(const std::vector<std::int64_t> &groupIds)
{
    if (!metadata_ || !carry_.empty())
        throw LoadError(path_, offset_, metadata_ ? "the exported .et ends inside a message" : "the exported .et is empty");
    SimRank rank = builder_->finish();
    regroupRank(rank, learned_, groupIds);
    return rank;
}

} // namespace linkscope::core::predict
