#pragma once
// Collects recoverable problems that may repeat millions of times (one per event) as one
// Diagnostic per kind: the count and the byte offsets of the first few occurrences.

#include "model/common.h"

#include <array>
#include <string>
#include <vector>

namespace linkscope::core::io {

class WarningSink {
public:
    static constexpr std::size_t kExamples = 3;

    explicit WarningSink(std::string file) : file_(std::move(file)) { }

    // `kind` is a stable message such as "event without \"ts\"; skipped".
    void add(const std::string &kind, std::uint64_t offset, const std::string &example = {})
    {
        for (auto &entry : entries_) {
            if (entry.kind == kind) {
                ++entry.count;
                if (entry.examples.size() < kExamples)
                    entry.examples.push_back({offset, example});
                return;
            }
        }
        entries_.push_back(Entry{kind, 1, {{offset, example}}});
    }

    struct Snapshot {
        std::vector<std::size_t> counts;
    };
    Snapshot snapshot() const
    {
        Snapshot s;
        for (const auto &e : entries_)
            s.counts.push_back(e.count);
        return s;
    }
    // Forgets what was added since `s` (a parse attempt that is retried).
    void rollback(const Snapshot &s)
    {
        entries_.resize(s.counts.size());
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            entries_[i].count = s.counts[i];
            if (entries_[i].examples.size() > s.counts[i])
                entries_[i].examples.resize(s.counts[i]);
        }
    }

    // Adds what `later` collected, as if its add() calls had come after this sink's (a reader's
    // chunks, merged in file order).
    void merge(const WarningSink &later)
    {
        for (const Entry &src : later.entries_) {
            Entry *dst = nullptr;
            for (Entry &entry : entries_) {
                if (entry.kind == src.kind) {
                    dst = &entry;
                    break;
                }
            }
            if (!dst) {
                entries_.push_back(Entry{src.kind, 0, {}});
                dst = &entries_.back();
            }
            dst->count += src.count;
            for (const Example &example : src.examples) {
                if (dst->examples.size() < kExamples)
                    dst->examples.push_back(example);
            }
        }
    }

    void appendTo(std::vector<Diagnostic> &out) const
    {
        for (const auto &e : entries_) {
            Diagnostic d;
            d.severity = Diagnostic::Severity::Warning;
            d.file = file_;
            d.offset = e.examples.empty() ? kUnknownOffset : e.examples.front().offset;
            std::string msg = e.count == 1 ? e.kind : std::to_string(e.count) + " × " + e.kind;
            std::string where;
            for (std::size_t i = 0; i < e.examples.size(); ++i) {
                where += i ? ", " : "";
                where += "byte " + std::to_string(e.examples[i].offset);
                if (!e.examples[i].text.empty())
                    where += " (" + e.examples[i].text + ")";
            }
            if (e.count > 1 || !e.examples.front().text.empty())
                msg += e.count > e.examples.size() ? "; first at " + where : "; at " + where;
            msg += " (offsets in the decompressed text)";
            d.message = std::move(msg);
            out.push_back(std::move(d));
        }
    }

private:
    struct Example {
        std::uint64_t offset;
        std::string text;
    };
    struct Entry {
        std::string kind;
        std::size_t count;
        std::vector<Example> examples;
    };
    std::string file_;
    std::vector<Entry> entries_;
};

} // namespace linkscope::core::io
