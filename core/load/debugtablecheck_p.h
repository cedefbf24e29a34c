#pragma once

// Private to core/load: an archive's debug tables (code/**.py.debug_pkl, the source ranges of its code) checked
// before torch::jit::load, which reads them lazily and trusts their shape: libtorch 1.13's
// ConcreteSourceRangeUnpickler indexes the table's tuples and its string table without a bound (an empty tuple, a
// row of one element or a line number past the string table read past a vector: SIGSEGV at the first node whose
// source is asked for). Found by tests/fuzz/fuzz_archive.

#include <cstddef>
#include <string>

namespace jitscope {

/// Unpickles @p size bytes of a debug table (already passed by checkPickle()) and checks the shape libtorch reads:
/// a non-empty tuple, either ("FORMAT_WITH_STRING_TABLE", (str, ...), rows) or rows; each row a tuple
/// (byte offset, source range, ...) of at least two; each range (source, start, end); each source (line indices
/// into the string table, file index, first line) or (text, file, first line). Empty when it is sound, else what is
/// wrong ("row 3: a source's line index 12 is past the string table of 9 entries").
std::string checkDebugTable(const char* data, size_t size);

} // namespace jitscope
