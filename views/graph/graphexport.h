#pragma once

#include <QString>

namespace jitscope {

class GraphScene;
struct LayoutOptions;

/// Writes the graph @p scene shows to @p path as SVG (graphSvg() of the scene's layout, titled @p title: the picture
/// the CLI's graph --format svg draws), PNG (or another raster format Qt knows by suffix: the scene as the window
/// draws it) or DOT (as core lays it out with @p options). Returns false and sets *error on failure.
bool exportGraph(GraphScene* scene, const QString& path, const LayoutOptions& options, const QString& title,
    QString* error = nullptr);

} // namespace jitscope
