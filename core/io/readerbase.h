#pragma once
// What the host ET and Kineto readers share: the text being parsed, the file's name for messages,
// progress, the warning sink, the validating scanner, and the translation of a scanner error into
// a LoadError that names the file and the byte offset.

#include "io/inputtext.h"
#include "io/jsonscan.h"
#include "io/warningsink.h"

#include <string>

namespace linkscope::core::io {

class ReaderBase {
protected:
    ReaderBase(InputText input, const std::string &name, ProgressReporter &progress)
        : text_(std::move(input.text))
        , name_(name)
        , progress_(progress)
        , progressDone_(input.progressDone)
        , wasGzip_(input.wasGzip)
        , sourceFile_(std::move(input.sourceFile))
        , sink_(name)
        , scanner_(text_.view())
    {
    }

    // Runs `parse`, turning a ScanError into a LoadError for this file.
    template<typename Parse>
    void parseGuarded(Parse &&parse)
    {
        try {
            parse();
        } catch (const ScanError &e) {
            throw LoadError(name_, e.offset, e.message + offsetNote());
        }
    }

    std::string offsetNote() const { return wasGzip_ ? " (byte offset in the decompressed text)" : ""; }

    [[noreturn]] void fail(std::uint64_t offset, const std::string &message) const
    {
        throw LoadError(name_, offset, message + offsetNote());
    }

    // Progress for having parsed up to `offset` of the text (after what reading already reported).
    void reportParsed(std::uint64_t offset) { progress_.report(progressDone_ + offset); }

    ParseBuffer text_;
    std::string name_;
    ProgressReporter &progress_;
    std::uint64_t progressDone_;
    bool wasGzip_;
    std::shared_ptr<const ArgsStore> sourceFile_; // set when the text is a plain file, readable later
    WarningSink sink_;
    JsonScanner scanner_;
};

} // namespace linkscope::core::io
