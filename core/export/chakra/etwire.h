#pragma once
// A Chakra Node written straight to protobuf's wire format, for the .et writer: the subset of
// ChakraProtoMsg::Node's interface the converter fills (ids, name, type, dependencies, times,
// inputs/outputs, int64/int32/bool/string attrs), encoded as libprotobuf serialises the same Node
// (fields in number order, proto3 defaults left out, packed dependencies, oneof attr values always
// written), so the bytes are the same without a message being built and walked twice (ByteSizeLong,
// then serialisation). One WireNode is reused for every node of a block: no allocation per node
// once its buffers have grown. tests/test_etwire compares it with libprotobuf on every node of the
// test traces.

#include "export/chakra/et_def.pb.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace linkscope::core {

namespace wire {

inline void appendVarint(std::string &out, std::uint64_t value)
{
    char bytes[10];
    int n = 0;
    while (value >= 0x80) {
        bytes[n++] = static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    bytes[n++] = static_cast<char>(value);
    out.append(bytes, static_cast<std::size_t>(n));
}

inline std::size_t varintSize(std::uint64_t value)
{
    std::size_t n = 1;
    while (value >= 0x80) {
        value >>= 7;
        ++n;
    }
    return n;
}

// A length-delimited field: its tag (field numbers below 16, one byte), length and bytes.
inline void appendBytesField(std::string &out, unsigned char tag, std::string_view bytes)
{
    out.push_back(static_cast<char>(tag));
    appendVarint(out, bytes.size());
    out.append(bytes);
}

} // namespace wire

class WireNode {
public:
    // The inputs or outputs: three strings, written (even when all are empty) once touched.
    class Io {
    public:
        void set_values(std::string_view text) { values_.assign(text); }
        void set_shapes(std::string_view text) { shapes_.assign(text); }
        void set_types(std::string_view text) { types_.assign(text); }
        void set_values(const char *data, std::size_t size) { values_.assign(data, size); }
        void set_shapes(const char *data, std::size_t size) { shapes_.assign(data, size); }
        void set_types(const char *data, std::size_t size) { types_.assign(data, size); }

    private:
        friend class WireNode;
        void clear()
        {
            present_ = false;
            values_.clear();
            shapes_.clear();
            types_.clear();
        }
        std::size_t size() const
        {
            auto field = [](const std::string &s) { return s.empty() ? 0 : 1 + wire::varintSize(s.size()) + s.size(); };
            return field(values_) + field(shapes_) + field(types_);
        }
        void append(std::string &out, unsigned char tag) const
        {
            if (!present_)
                return;
            out.push_back(static_cast<char>(tag));
            wire::appendVarint(out, size());
            if (!values_.empty())
                wire::appendBytesField(out, 0x0a, values_);
            if (!shapes_.empty())
                wire::appendBytesField(out, 0x12, shapes_);
            if (!types_.empty())
                wire::appendBytesField(out, 0x1a, types_);
        }
        bool present_ = false;
        std::string values_, shapes_, types_;
    };

    void Clear()
    {
        id_ = start_ = duration_ = 0;
        type_ = ChakraProtoMsg::INVALID_NODE;
        name_.clear();
        ctrlDeps_.clear();
        dataDeps_.clear();
        inputs_.clear();
        outputs_.clear();
        attrs_.clear();
    }
    void set_id(std::uint64_t id) { id_ = id; }
    void set_name(std::string_view name) { name_.assign(name); }
    const std::string &name() const { return name_; }
    void set_type(ChakraProtoMsg::NodeType type) { type_ = type; }
    ChakraProtoMsg::NodeType type() const { return type_; }
    void add_ctrl_deps(std::uint64_t id) { wire::appendVarint(ctrlDeps_, id); }
    void add_data_deps(std::uint64_t id) { wire::appendVarint(dataDeps_, id); }
    void set_start_time_micros(std::uint64_t micros) { start_ = micros; }
    void set_duration_micros(std::uint64_t micros) { duration_ = micros; }
    std::uint64_t duration_micros() const { return duration_; }
    Io *mutable_inputs()
    {
        inputs_.present_ = true;
        return &inputs_;
    }
    Io *mutable_outputs()
    {
        outputs_.present_ = true;
        return &outputs_;
    }

    // AttributeProto {name = 1; oneof value: int32_val = 7, int64_val = 9, bool_val = 27, string_val = 29}.
    void addInt64(std::string_view name, std::int64_t value)
    {
        attrHead(name, 1 + wire::varintSize(static_cast<std::uint64_t>(value)));
        attrs_.push_back(0x48);
        wire::appendVarint(attrs_, static_cast<std::uint64_t>(value));
    }
    void addInt32(std::string_view name, std::int32_t value)
    {
        // An int32 is written as its sign-extended 64-bit value (ten bytes when negative).
        const auto extended = static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
        attrHead(name, 1 + wire::varintSize(extended));
        attrs_.push_back(0x38);
        wire::appendVarint(attrs_, extended);
    }
    void addBool(std::string_view name, bool value)
    {
        attrHead(name, 3);
        attrs_.append("\xd8\x01", 2);
        attrs_.push_back(value ? 1 : 0);
    }
    void addString(std::string_view name, std::string_view value)
    {
        attrHead(name, 2 + wire::varintSize(value.size()) + value.size());
        attrs_.append("\xea\x01", 2);
        wire::appendVarint(attrs_, value.size());
        attrs_.append(value);
    }

    // The node as Chakra's encode_message writes it: its length as a varint, then its bytes.
    void appendDelimited(std::string &out)
    {
        body_.clear();
        if (id_ != 0) {
            body_.push_back(0x08);
            wire::appendVarint(body_, id_);
        }
        if (!name_.empty())
            wire::appendBytesField(body_, 0x12, name_);
        if (type_ != ChakraProtoMsg::INVALID_NODE) {
            body_.push_back(0x18);
            wire::appendVarint(body_, static_cast<std::uint64_t>(static_cast<std::int64_t>(type_)));
        }
        if (!ctrlDeps_.empty())
            wire::appendBytesField(body_, 0x22, ctrlDeps_);
        if (!dataDeps_.empty())
            wire::appendBytesField(body_, 0x2a, dataDeps_);
        if (start_ != 0) {
            body_.push_back(0x30);
            wire::appendVarint(body_, start_);
        }
        if (duration_ != 0) {
            body_.push_back(0x38);
            wire::appendVarint(body_, duration_);
        }
        inputs_.append(body_, 0x42);
        outputs_.append(body_, 0x4a);
        body_ += attrs_;
        wire::appendVarint(out, body_.size());
        out += body_;
    }

private:
    // An attr's tag and length, and its name field; `valueBytes` is the size of what follows.
    void attrHead(std::string_view name, std::size_t valueBytes)
    {
        const std::size_t nameBytes = name.empty() ? 0 : 1 + wire::varintSize(name.size()) + name.size();
        attrs_.push_back(0x52);
        wire::appendVarint(attrs_, nameBytes + valueBytes);
        if (!name.empty())
            wire::appendBytesField(attrs_, 0x0a, name);
    }

    std::uint64_t id_ = 0, start_ = 0, duration_ = 0;
    ChakraProtoMsg::NodeType type_ = ChakraProtoMsg::INVALID_NODE;
    std::string name_;
    std::string ctrlDeps_, dataDeps_; // packed varints
    Io inputs_, outputs_;
    std::string attrs_; // each attr field whole
    std::string body_;
};

} // namespace linkscope::core
