#pragma once
// A table built in C++ without the GIL (plain vectors), handed to Python as a dict of columns that
// linkscope/__init__.py turns into a pandas DataFrame: numpy arrays without a copy (the vector moves
// into the array's owner), nullable integers as (values, mask), strings as categorical codes.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace linkscope::python {

namespace py = pybind11;

struct Column {
    enum class Kind : std::uint8_t { Int, NullableInt, Float, Bool, Category };
    std::string name;
    Kind kind = Kind::Int;
    std::vector<std::int64_t> ints;  // Int, NullableInt
    std::vector<std::uint8_t> nulls; // NullableInt (1: missing), Bool (the values)
    std::vector<double> floats;      // Float
    std::vector<std::int32_t> codes; // Category (-1: missing)
    std::vector<std::string> labels; // Category: the categories
};

// Strings of a column as categorical codes: each distinct string once.
class Categories {
public:
    std::int32_t code(std::string_view text)
    {
        const auto it = index_.find(std::string(text));
        if (it != index_.end())
            return it->second;
        const auto code = static_cast<std::int32_t>(labels_.size());
        labels_.emplace_back(text);
        index_.emplace(labels_.back(), code);
        return code;
    }
    std::vector<std::string> take() { return std::move(labels_); }

private:
    std::vector<std::string> labels_;
    std::unordered_map<std::string, std::int32_t> index_;
};

// The same keyed by an interned id (a trace's StringId): one lookup in a flat array per row.
class IdCategories {
public:
    explicit IdCategories(std::size_t ids) : codes_(ids, -1) { }
    template <class NameOf>
    std::int32_t code(std::uint32_t id, const NameOf &nameOf)
    {
        std::int32_t &c = codes_.at(id);
        if (c < 0) {
            c = static_cast<std::int32_t>(labels_.size());
            labels_.emplace_back(nameOf(id));
        }
        return c;
    }
    std::vector<std::string> take() { return std::move(labels_); }

private:
    std::vector<std::int32_t> codes_;
    std::vector<std::string> labels_;
};

class Table {
public:
    explicit Table(std::size_t rows = 0) : rows_(rows) { }
    std::size_t rows() const { return rows_; }

    std::vector<std::int64_t> &ints(std::string name)
    {
        Column &c = add(std::move(name), Column::Kind::Int);
        c.ints.reserve(rows_);
        return c.ints;
    }
    // Values and the missing mask, filled together with push().
    Column &nullableInts(std::string name)
    {
        Column &c = add(std::move(name), Column::Kind::NullableInt);
        c.ints.reserve(rows_);
        c.nulls.reserve(rows_);
        return c;
    }
    std::vector<double> &floats(std::string name)
    {
        Column &c = add(std::move(name), Column::Kind::Float);
        c.floats.reserve(rows_);
        return c.floats;
    }
    std::vector<std::uint8_t> &bools(std::string name)
    {
        Column &c = add(std::move(name), Column::Kind::Bool);
        c.nulls.reserve(rows_);
        return c.nulls;
    }
    Column &category(std::string name)
    {
        Column &c = add(std::move(name), Column::Kind::Category);
        c.codes.reserve(rows_);
        return c;
    }
    // A column of strings, each row its own (categories made here).
    void strings(std::string name, const std::vector<std::string> &values)
    {
        Categories cats;
        Column &c = category(std::move(name));
        for (const std::string &v : values)
            c.codes.push_back(cats.code(v));
        c.labels = cats.take();
    }

    static void push(Column &c, std::int64_t value, bool missing)
    {
        c.ints.push_back(missing ? 0 : value);
        c.nulls.push_back(missing ? 1 : 0);
    }

    // The columns in order: {name: array | ("int?", values, mask) | ("cat", codes, categories)}.
    // Needs the GIL.
    py::dict toPython()
    {
        py::dict out;
        for (Column &c : columns_) {
            switch (c.kind) {
            case Column::Kind::Int:
                out[py::str(c.name)] = array(std::move(c.ints));
                break;
            case Column::Kind::NullableInt:
                out[py::str(c.name)] = py::make_tuple("int?", array(std::move(c.ints)), boolArray(std::move(c.nulls)));
                break;
            case Column::Kind::Float:
                out[py::str(c.name)] = array(std::move(c.floats));
                break;
            case Column::Kind::Bool:
                out[py::str(c.name)] = boolArray(std::move(c.nulls));
                break;
            case Column::Kind::Category: {
                py::list labels(c.labels.size());
                for (std::size_t i = 0; i < c.labels.size(); ++i)
                    labels[i] = py::reinterpret_steal<py::object>(
                        PyUnicode_DecodeUTF8(c.labels[i].data(), static_cast<Py_ssize_t>(c.labels[i].size()), "replace"));
                out[py::str(c.name)] = py::make_tuple("cat", array(std::move(c.codes)), std::move(labels));
                break;
            }
            }
        }
        columns_.clear();
        return out;
    }

private:
    Column &add(std::string name, Column::Kind kind)
    {
        columns_.push_back({});
        columns_.back().name = std::move(name);
        columns_.back().kind = kind;
        return columns_.back();
    }
    template <class T>
    static py::array_t<T> array(std::vector<T> &&values)
    {
        auto *owned = new std::vector<T>(std::move(values));
        py::capsule owner(owned, [](void *p) { delete static_cast<std::vector<T> *>(p); });
        return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
    }
    static py::array boolArray(std::vector<std::uint8_t> &&values)
    {
        auto *owned = new std::vector<std::uint8_t>(std::move(values));
        py::capsule owner(owned, [](void *p) { delete static_cast<std::vector<std::uint8_t> *>(p); });
        return py::array(py::dtype("bool"), {static_cast<py::ssize_t>(owned->size())}, {1}, owned->data(), owner);
    }

    std::size_t rows_;
    std::deque<Column> columns_; // a deque: a column's reference stays valid while others are added
};

} // namespace linkscope::python
