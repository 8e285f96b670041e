#pragma once
// An ArgsStore that reads the events' args back from the plain trace file by position (pread), so
// that a loaded trace keeps neither the file's text nor a copy of its args. It holds its own
// descriptor: a file replaced by rename stays readable; a file truncated or rewritten in place is
// detected (size or modification time differ from the load) and reported, never read as args.

#include "model/argsstore.h"

#include <memory>
#include <string>

namespace linkscope::core::io {

class FileArgs final : public ArgsStore {
public:
    // Duplicates `fd` (an open plain trace file of `size` bytes); null if that fails.
    static std::shared_ptr<const FileArgs> fromOpenFile(int fd, const std::string &path, std::uint64_t size);
    ~FileArgs() override;
    FileArgs(const FileArgs &) = delete;
    FileArgs &operator=(const FileArgs &) = delete;

    std::string_view read(Span span, std::string &scratch) const override;
    bool readBlock(std::uint64_t offset, std::size_t bytes, std::string &out) const override;
    std::uint64_t sizeBytes() const override { return size_; }
    std::string unavailableReason() const override;

private:
    FileArgs(int fd, std::string path, std::uint64_t size, std::int64_t mtimeNs);
    bool unchanged() const;

    int fd_;
    std::string path_;
    std::uint64_t size_;
    std::int64_t mtimeNs_;
};

} // namespace linkscope::core::io
