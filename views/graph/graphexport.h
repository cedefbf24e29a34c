#pragma once

#include <QString>

namespace jitscope {

class GraphScene;
struct LayoutOptions;

/// Writes the graph @p scene shows to @p path as SVG, PNG (or another raster format Qt knows by suffix) or DOT (as
/// core lays it out with @p options). Returns false and sets *error on failure.
bool exportGraph(GraphScene* scene, const QString& path, const LayoutOptions& options, const QString& title,
    const QString& description, QString* error = nullptr);

} // namespace jitscope
