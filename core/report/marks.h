#pragma once

// How a node of one graph relates to the other graph of a comparison, and how every reader marks it: the window's
// boxes, badges and legends, the HTML report's graphs, legend and node rows. One table, so that an inserted node is
// the same green everywhere.

#include "report/divergence.h"

#include <QString>

namespace jitscope {

/// How a node of one graph relates to the other graph of a comparison.
enum class DiffStatus { Unchanged, Inserted, Deleted, Changed };

/// How a status is shown. Colours are 0xRRGGBB; Unchanged has none (0) and no symbol.
struct DiffMark
{
    DiffStatus status;
    const char* name; ///< "inserted": the legend's word, the HTML report's class
    const char* symbol; ///< "+", "\u2212", "~": a node row's mark
    const char* htmlSymbol; ///< the symbol as HTML writes it ("&minus;")
    unsigned color; ///< strong: borders, badges, legend swatches, on a light background
    unsigned darkColor; ///< strong, on a dark background
    unsigned fill; ///< light fill of a node box
};

/// The row of @p status.
const DiffMark& diffMark(DiffStatus status);
/// The status a change gives its nodes: an insert the other graph's node, a delete the base's, a change both.
DiffStatus diffStatusOf(NodeChange::Op op);
/// "#1a7f37"
QString rgbName(unsigned rgb);

} // namespace jitscope
