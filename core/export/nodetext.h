#pragma once
// A host ET node's raw text, for the writers that copy parts of it (ET+ JSON, the .et's inputs and
// outputs).

#include "export/exporter.h"
#include "model/argsstore.h"

#include <string>
#include <string_view>

namespace linkscope::core {

// The host ET text of one node at a time, for one block of nodes: the node's whole object is read
// once (its inputs, outputs and attrs are slices of it, copied out verbatim); a part outside it
// (never seen from the reader, but spans are only spans) is read on its own.
class NodeText {
public:
    explicit NodeText(const HostTrace &host) : host_(host), whole_(host.source.get()), apart_(host.source.get()) { }

    void load(const HostNode &node)
    {
        raw_ = node.raw;
        text_ = whole_.read(node.raw);
        if (text_.size() != node.raw.length)
            text_ = {};
    }
    // A part of the loaded node; the view is valid until the next part() or load(). Throws when the
    // text cannot be read (the file changed since loading).
    std::string_view part(Span span)
    {
        if (span.empty())
            return {};
        if (!text_.empty() && span.offset >= raw_.offset && span.offset + span.length <= raw_.offset + text_.size())
            return text_.substr(static_cast<std::size_t>(span.offset - raw_.offset), span.length);
        const std::string_view text = apart_.read(span);
        if (text.size() != span.length)
            throw ExportError("cannot read the host ET node text at byte " + std::to_string(span.offset) + " of " + host_.path
                              + ": " + host_.sourceUnavailableReason());
        return text;
    }

private:
    const HostTrace &host_;
    ArgsReader whole_, apart_;
    Span raw_;
    std::string_view text_;
};

} // namespace linkscope::core
