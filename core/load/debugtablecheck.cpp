#include "load/debugtablecheck_p.h"

#include <torch/csrc/jit/mobile/type_parser.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <string>

namespace jitscope {

namespace {

struct Problem
{
    std::string message;
};

const c10::ivalue::TupleElements& tupleOf(const c10::IValue& v, size_t atLeast, const std::string& what)
{
    if (!v.isTuple())
        throw Problem { what + " is a " + v.tagKind() + ", not a tuple" };
    const auto& elements = v.toTupleRef().elements();
    if (elements.size() < atLeast)
        throw Problem { what + " has " + std::to_string(elements.size()) + " elements, not "
            + std::to_string(atLeast) };
    return elements;
}

int64_t intOf(const c10::IValue& v, const std::string& what)
{
    if (!v.isInt())
        throw Problem { what + " is a " + v.tagKind() + ", not an int" };
    return v.toInt();
}

void checkIndex(int64_t index, size_t tableSize, const std::string& what)
{
    if (index < 0 || size_t(index) >= tableSize)
        throw Problem { what + " " + std::to_string(index) + " is past the string table of " + std::to_string(tableSize)
            + " entries" };
}

void checkSource(const c10::IValue& v, size_t tableSize, const std::string& where)
{
    const auto& source = tupleOf(v, 3, where + ": a source");
    intOf(source[2], where + ": a source's first line");
    if (tableSize > 0) {
        if (!source[0].isIntList())
            throw Problem { where + ": a source's lines are a " + source[0].tagKind() + ", not a list of ints" };
        for (int64_t line : source[0].toIntList())
            checkIndex(line, tableSize, where + ": a source's line index");
        checkIndex(intOf(source[1], where + ": a source's file index"), tableSize, where + ": a source's file index");
    } else {
        if (!source[0].isString())
            throw Problem { where + ": a source's text is a " + source[0].tagKind() + ", not a string" };
        if (!source[1].isNone() && !source[1].isString())
            throw Problem { where + ": a source's file is a " + source[1].tagKind() + ", not a string" };
    }
}

} // namespace

std::string checkDebugTable(const char* data, size_t size)
{
    try {
        const c10::IValue top = torch::jit::unpickle(data, size, nullptr, {}, c10::parseType);
        const auto& elements = tupleOf(top, 1, "the table");
        size_t tableSize = 0;
        const c10::ivalue::TupleElements* rows = &elements;
        if (elements[0].isString() && elements[0].toStringRef() == "FORMAT_WITH_STRING_TABLE") {
            tupleOf(top, 3, "the table with a string table");
            const auto& strings = tupleOf(elements[1], 0, "the string table");
            for (size_t i = 0; i < strings.size(); ++i)
                if (!strings[i].isString())
                    throw Problem { "string table entry " + std::to_string(i) + " is a " + strings[i].tagKind() };
            tableSize = strings.size();
            rows = &tupleOf(elements[2], 0, "the rows");
        }
        for (size_t r = 0; r < rows->size(); ++r) {
            const std::string where = "row " + std::to_string(r);
            const auto& row = tupleOf((*rows)[r], 2, where);
            intOf(row[0], where + ": the byte offset");
            const auto& range = tupleOf(row[1], 3, where + ": the source range");
            intOf(range[1], where + ": the range's start");
            intOf(range[2], where + ": the range's end");
            checkSource(range[0], tableSize, where);
        }
    } catch (const Problem& p) {
        return p.message;
    } catch (const std::exception& e) {
        std::string what = e.what();
        return "unreadable (" + what.substr(0, what.find('\n')) + ")";
    }
    return {};
}

} // namespace jitscope
