#pragma once

// The module cluster layouts LayoutCache keeps (hierarchicallayout.cpp makes and reads them). Private to core;
// no Graphviz here, so that what holds a cache (the window's document) links none.

#include "report/graphlayout.h"

#include <QByteArray>
#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QVector>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace jitscope {

/// One module cluster laid out on its own: its frame's top-left at (0, 0), y down, everything by local names.
struct ClusterGeometry
{
    QSizeF size;
    QVector<QRectF> nodes; ///< "n<j>"
    QVector<QRectF> children; ///< child module placeholders "c<j>"
    QVector<QRectF> clusters; ///< control-flow clusters "cluster_<j>"
    QVector<QVector<QPointF>> edges; ///< by local edge id
    QVector<QPointF> labels;
};
using GeometryPtr = std::shared_ptr<const ClusterGeometry>;

struct LayoutCache::Private
{
    mutable std::mutex mutex;
    int capacity = 0;
    quint64 clock = 0;
    struct Entry
    {
        GeometryPtr geometry;
        quint64 used = 0;
    };
    QHash<QByteArray, Entry> entries;

    GeometryPtr find(const QByteArray& key)
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = entries.find(key);
        if (it == entries.end())
            return {};
        it->used = ++clock;
        return it->geometry;
    }
    void insert(const QByteArray& key, GeometryPtr geometry)
    {
        std::lock_guard<std::mutex> lock(mutex);
        entries.insert(key, { std::move(geometry), ++clock });
        if (entries.size() <= capacity)
            return;
        // Drop the least recently used quarter at once, not one entry per insert.
        std::vector<quint64> used;
        used.reserve(entries.size());
        for (const Entry& e : std::as_const(entries))
            used.push_back(e.used);
        const size_t drop = used.size() - size_t(capacity) * 3 / 4;
        std::nth_element(used.begin(), used.begin() + drop, used.end());
        const quint64 threshold = used[drop];
        for (auto it = entries.begin(); it != entries.end();)
            it = it->used < threshold ? entries.erase(it) : std::next(it);
    }
};

} // namespace jitscope
