// The pickle checker: libtorch's unpickler (torch/csrc/jit/serialization/unpickler.cpp) run dry. Every value is an
// id with its nesting depth and its expanded size; nothing is built, so a hostile pickle costs a few bytes of
// bookkeeping per opcode.

#include "load/picklecheck_p.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace jitscope {

namespace {

/// Values whose expanded size (memo references counted each time) passes this are refused: libtorch prints and
/// walks constants recursively, and a few hundred bytes of shared tuples can stand for 2^100 elements.
constexpr uint64_t kMaxExpandedSize = uint64_t(1) << 26;

struct Value
{
    int depth = 1;
    uint64_t size = 1;
    bool container = false; ///< a list or a dict: the targets APPENDS, SETITEMS and SETITEM change in place
    bool referenced = false; ///< a memo reference to it was pushed: changing it now could make it contain itself
};

class Scanner
{
public:
    Scanner(const char* data, size_t size, int maxDepth)
        : m_data(reinterpret_cast<const unsigned char*>(data))
        , m_size(size)
        , m_maxDepth(maxDepth)
    { }

    PickleProblem run()
    {
        try {
            while (true) {
                if (m_pos >= m_size)
                    fail(m_pos, "ends without a STOP opcode (truncated?)");
                m_op = m_pos;
                const unsigned char op = m_data[m_pos++];
                if (op == '.') {
                    if (m_stack.empty())
                        fail(m_op, "STOP with an empty stack");
                    return {};
                }
                step(op);
            }
        } catch (const PickleProblem& p) {
            return p;
        }
    }

private:
    [[noreturn]] void fail(size_t offset, std::string message) const
    {
        PickleProblem p;
        p.ok = false;
        p.offset = offset;
        p.message = std::move(message);
        throw p;
    }

    uint64_t readUnsigned(size_t bytes)
    {
        if (m_size - m_pos < bytes)
            fail(m_op, "argument runs past the end of the pickle");
        uint64_t v = 0;
        for (size_t i = 0; i < bytes; ++i)
            v |= uint64_t(m_data[m_pos + i]) << (8 * i);
        m_pos += bytes;
        return v;
    }

    void skip(uint64_t bytes)
    {
        if (m_size - m_pos < bytes)
            fail(m_op, "length " + std::to_string(bytes) + " runs past the end of the pickle");
        m_pos += size_t(bytes);
    }

    void readLine()
    {
        const void* nl = std::memchr(m_data + m_pos, '\n', m_size - m_pos);
        if (!nl)
            fail(m_op, "GLOBAL name without its newline");
        m_pos = size_t(static_cast<const unsigned char*>(nl) - m_data) + 1;
    }

    void need(size_t n, const char* op) const
    {
        if (m_stack.size() < n)
            fail(m_op,
                std::string("stack underflow: ") + op + " needs " + std::to_string(n) + " value" + (n == 1 ? "" : "s")
                    + ", the stack holds " + std::to_string(m_stack.size()));
    }

    /// The stack position of the innermost MARK, popped.
    size_t popMark(const char* op)
    {
        if (m_marks.empty())
            fail(m_op, std::string(op) + " without a MARK");
        const size_t start = m_marks.back();
        m_marks.pop_back();
        if (start > m_stack.size())
            fail(m_op, std::string(op) + ": its MARK lies above the stack (values popped past it)");
        return start;
    }

    size_t push(Value v)
    {
        if (v.depth > m_maxDepth)
            fail(m_op, "values nested more than " + std::to_string(m_maxDepth) + " deep");
        if (v.size > kMaxExpandedSize)
            fail(m_op, "a value of more than " + std::to_string(kMaxExpandedSize) + " elements once expanded");
        m_values.push_back(v);
        m_stack.push_back(m_values.size() - 1);
        return m_values.size() - 1;
    }

    /// A new value made of the stack's values from @p start up, which are popped.
    void build(size_t start, bool container)
    {
        Value v;
        v.container = container;
        for (size_t i = start; i < m_stack.size(); ++i)
            absorb(v, m_values[m_stack[i]]);
        m_stack.resize(start);
        push(v);
    }

    static void absorb(Value& into, const Value& child)
    {
        into.depth = std::max(into.depth, child.depth + 1);
        into.size = std::min(into.size + child.size, kMaxExpandedSize + 1);
    }

    /// Adds the stack's values from @p start up to the container at @p target (APPENDS, SETITEMS, SETITEM).
    void extend(size_t target, size_t start, const char* op)
    {
        Value& t = m_values[m_stack[target]];
        if (!t.container)
            fail(m_op, std::string(op) + " on a value that is not a list or a dict");
        if (t.referenced)
            fail(m_op, std::string(op) + " on a list or dict already referenced from the memo (a cycle?)");
        Value grown = t;
        for (size_t i = start; i < m_stack.size(); ++i)
            absorb(grown, m_values[m_stack[i]]);
        if (grown.depth > m_maxDepth)
            fail(m_op, "values nested more than " + std::to_string(m_maxDepth) + " deep");
        if (grown.size > kMaxExpandedSize)
            fail(m_op, "a value of more than " + std::to_string(kMaxExpandedSize) + " elements once expanded");
        m_values[m_stack[target]] = grown;
        m_stack.resize(start);
    }

    void memoPut(uint64_t index)
    {
        if (m_stack.empty())
            fail(m_op, "memo store with an empty stack");
        // libtorch's memo grows by one entry at a time; anything else is a hostile index (and a huge allocation).
        if (index > m_memo.size())
            fail(m_op,
                "memo index " + std::to_string(index) + " skips entries (the memo holds "
                    + std::to_string(m_memo.size()) + ")");
        if (index == m_memo.size())
            m_memo.push_back(m_stack.back());
        else
            m_memo[size_t(index)] = m_stack.back();
    }

    void memoGet(uint64_t index)
    {
        if (index >= m_memo.size())
            fail(m_op, "memo index " + std::to_string(index) + " was never stored");
        const size_t id = m_memo[size_t(index)];
        m_values[id].referenced = true;
        m_stack.push_back(id);
    }

    void step(unsigned char op)
    {
        switch (op) {
        case 0x80: // PROTO
            readUnsigned(1);
            break;
        case '(': // MARK
            if (m_marks.size() >= size_t(m_maxDepth))
                fail(m_op, "MARKs nested more than " + std::to_string(m_maxDepth) + " deep");
            m_marks.push_back(m_stack.size());
            break;
        case ']': // EMPTY_LIST
        case '}': // EMPTY_DICT
            push(Value { 1, 1, true, false });
            break;
        case ')': // EMPTY_TUPLE
        case 'N': // NONE
        case 0x88: // NEWTRUE
        case 0x89: // NEWFALSE
            push(Value {});
            break;
        case 'K': // BININT1
            readUnsigned(1), push(Value {});
            break;
        case 'M': // BININT2
            readUnsigned(2), push(Value {});
            break;
        case 'J': // BININT
            readUnsigned(4), push(Value {});
            break;
        case 'G': // BINFLOAT
            readUnsigned(8), push(Value {});
            break;
        case 0x8a: // LONG1
            skip(readUnsigned(1)), push(Value {});
            break;
        case 'X': // BINUNICODE
            skip(readUnsigned(4)), push(Value {});
            break;
        case 'q': // BINPUT
            memoPut(readUnsigned(1));
            break;
        case 'r': // LONG_BINPUT
            memoPut(readUnsigned(4));
            break;
        case 'h': // BINGET
            memoGet(readUnsigned(1));
            break;
        case 'j': // LONG_BINGET
            memoGet(readUnsigned(4));
            break;
        case 't': // TUPLE
            build(popMark("TUPLE"), false);
            break;
        case 0x85: // TUPLE1
        case 0x86: // TUPLE2
        case 0x87: { // TUPLE3
            const size_t n = size_t(op - 0x84);
            need(n, n == 1 ? "TUPLE1" : n == 2 ? "TUPLE2" : "TUPLE3");
            build(m_stack.size() - n, false);
            break;
        }
        case 'l': // LIST
            build(popMark("LIST"), true);
            break;
        case 'd': { // DICT
            const size_t start = popMark("DICT");
            if ((m_stack.size() - start) % 2)
                fail(m_op, "DICT with a key left without its value");
            build(start, true);
            break;
        }
        case 'e': { // APPENDS
            const size_t start = popMark("APPENDS");
            if (start == 0)
                fail(m_op, "stack underflow: APPENDS has no list below its MARK");
            extend(start - 1, start, "APPENDS");
            break;
        }
        case 'u': { // SETITEMS
            const size_t start = popMark("SETITEMS");
            if (start == 0)
                fail(m_op, "stack underflow: SETITEMS has no dict below its MARK");
            if ((m_stack.size() - start) % 2)
                fail(m_op, "SETITEMS with a key left without its value");
            extend(start - 1, start, "SETITEMS");
            break;
        }
        case 's': // SETITEM
            need(3, "SETITEM");
            extend(m_stack.size() - 3, m_stack.size() - 2, "SETITEM");
            break;
        case 'c': // GLOBAL: module and name, each ending in a newline
            readLine();
            readLine();
            push(Value {});
            break;
        case 0x81: // NEWOBJ: libtorch pops the (empty) argument tuple; the class stays
            need(1, "NEWOBJ");
            m_stack.pop_back();
            break;
        case 'b': // BUILD
        case 'R': // REDUCE: a global applied to its argument
            need(2, op == 'b' ? "BUILD" : "REDUCE");
            build(m_stack.size() - 2, false);
            break;
        case 'Q': // BINPERSID: a storage record's key tuple becomes a tensor
            need(1, "BINPERSID");
            m_stack.pop_back();
            push(Value {});
            break;
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", unsigned(op));
            fail(m_op, std::string("opcode ") + hex + " is not one libtorch reads");
        }
        }
    }

    const unsigned char* m_data;
    size_t m_size;
    int m_maxDepth;
    size_t m_pos = 0;
    size_t m_op = 0;
    std::vector<Value> m_values;
    std::vector<size_t> m_stack; ///< ids into m_values
    std::vector<size_t> m_marks;
    std::vector<size_t> m_memo;
};

} // namespace

PickleProblem checkPickle(const char* data, size_t size, int maxDepth)
{
    return Scanner(data, size, maxDepth).run();
}

} // namespace jitscope
