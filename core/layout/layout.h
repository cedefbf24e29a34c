#pragma once

// Graphviz's part of the layout: the boxes and splines of a graph (report/graphlayout.h holds the values, the DOT
// text and the folds), and the CLI's pictures of a graph. The model worker and the CLI link it; the
// window asks its ModelEngine.

#include "report/graphlayout.h"

#include <QByteArray>

namespace jitscope {

/// Runs Graphviz's dot layout on toDot()'s graph. Thread-safe (Graphviz calls are serialised).
GraphLayout layoutGraph(const IrGraph& graph, const LayoutOptions& options = {});

/// The graph as layoutGraph() lays it out, in @p format: "svg" is graphSvg()'s picture of that layout
/// (report/graphsvg.h, titled @p title), the one the HTML report and the window's export draw too; "png" and "dot"
/// are Graphviz's. A graph laid out by one dot run is rendered by dot ("dot": toDot()'s text); one laid out module by
/// module (LayoutOptions::hierarchicalAbove) is rendered at the positions of that layout, and its "dot" carries them
/// (pos, bb: `neato -n2 -Tsvg` draws it), @p layout when given (layoutGraph()'s with the same options), else its own.
/// Empty and *error on failure. docs/graph-formats.md describes the formats.
QByteArray renderGraph(const IrGraph& graph, const LayoutOptions& options, const QString& format,
    QString* error = nullptr, const GraphLayout* layout = nullptr, const QString& title = {});
/// Renders DOT text as Graphviz's dot lays it out to Graphviz's SVG: for DOT text of any origin (tests of the layout);
/// a graph's picture is renderGraph()'s. Returns empty and sets *error on failure.
QByteArray renderDotToSvg(const QString& dot, QString* error = nullptr);

/// The Graphviz version layout runs on, for --version and the About box.
QString graphvizVersion();

} // namespace jitscope
