#pragma once

// The one picture of a laid-out graph as SVG: the CLI's graph and trace --format svg, the HTML report's inline graphs
// and the window's File > Export all draw through graphSvg() (docs/graph-formats.md). Qt Core only, so that the
// window, which links no Graphviz, draws what the CLI draws from the same GraphLayout.

#include "report/graphlayout.h"
#include "report/marks.h"

#include <QHash>
#include <QString>

namespace jitscope {

/// How graphSvg() draws a laid-out graph.
struct GraphSvgOptions
{
    QString title; ///< the picture's <title> and aria-label: the function, "trace 2"
    QHash<int, DiffStatus> marks; ///< diff colours by IrGraph node id; missing: unchanged
    /// A file of its own: an XML declaration, width and height, and graphSvgStyle() inside. Otherwise an element of
    /// the HTML report's page, which carries the style sheet once for all its graphs.
    bool standalone = true;
    QString arrowId = QStringLiteral("arrow"); ///< the arrowhead marker's id, unique on a page of several pictures
};

/// @p layout drawn as the window draws it: rounded boxes filled by op category, each with its title and folded
/// details, edges as Graphviz routed them with arrowheads, clusters dashed with their titles, diff marks outlined.
QString graphSvg(const GraphLayout& layout, const GraphSvgOptions& options = {});

/// The CSS rules that give graphSvg()'s elements their looks (prefixed `svg `), diff colours from the table of marks.
QString graphSvgStyle();

} // namespace jitscope
