#include "report/opname.h"

#include <algorithm>
#include <cctype>

namespace linkscope::core {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)::";

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// "name#12" → "name#N"; anything else unchanged.
std::string numberedSuffix(std::string s)
{
    const std::size_t hash = s.rfind('#');
    if (hash == std::string::npos || hash + 1 == s.size())
        return s;
    if (!std::all_of(s.begin() + static_cast<std::ptrdiff_t>(hash) + 1, s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
        return s;
    s.resize(hash + 1);
    s += 'N';
    return s;
}

// A demangled C++ signature or qualified template name: "void ns::f<…>(…)", "ns::f<…>", "f(int)"
// with a namespace. What is not one keeps its parentheses ("Memcpy HtoD (Pageable -> Device)").
bool looksLikeSignature(std::string_view s)
{
    if (s.find("::") != std::string_view::npos || s.starts_with("void "))
        return s.find_first_of("<(") != std::string_view::npos;
    // "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)": one word, then its
    // parameters.
    const std::size_t open = s.find('(');
    if (open == 0 || open == std::string_view::npos || !s.ends_with(')'))
        return false;
    const std::string_view word = s.substr(0, open);
    return std::all_of(word.begin(), word.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

// The name with every bracketed part at depth 0 — template arguments <…> and parameter lists (…) —
// removed; empty when the brackets do not balance (then the caller keeps the name).
std::string stripBrackets(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (s.substr(i).starts_with(kAnonymous)) {
            i += kAnonymous.size() - 1; // the namespace of an anonymous namespace says nothing
            continue;
        }
        if (depth == 0 && s.substr(i).starts_with("operator") && (i == 0 || s[i - 1] == ':' || isSpace(s[i - 1])))
            return {}; // operator<, operator() …: brackets that are part of the name
        if (c == '<' || c == '(' || c == '[') {
            ++depth;
        } else if (c == '>' || c == ')' || c == ']') {
            if (--depth < 0)
                return {};
        } else if (depth == 0) {
            out += c;
        }
    }
    return depth == 0 ? out : std::string();
}

} // namespace

std::string normalizeOpName(std::string_view name)
{
    const std::string_view whole = trim(name);
    if (!looksLikeSignature(whole))
        return numberedSuffix(std::string(whole));
    std::string bare = stripBrackets(whole);
    std::string_view s = trim(bare);
    if (s.empty())
        return numberedSuffix(std::string(whole));
    // What is left is "[return type] qualified::name [const]": keep the last word but a qualifier.
    while (s.ends_with(" const") || s.ends_with(" volatile"))
        s = trim(s.substr(0, s.rfind(' ')));
    const std::size_t space = s.find_last_of(" \t*&");
    if (space != std::string_view::npos)
        s = s.substr(space + 1);
    if (s.empty())
        return numberedSuffix(std::string(whole));
    return numberedSuffix(std::string(s));
}

} // namespace linkscope::core
