#include "report/layoutcache_p.h"

namespace jitscope {

LayoutCache::LayoutCache(int capacity)
    : m_d(std::make_unique<Private>())
{
    m_d->capacity = std::max(1, capacity);
}

LayoutCache::~LayoutCache() = default;

int LayoutCache::size() const
{
    std::lock_guard<std::mutex> lock(m_d->mutex);
    return int(m_d->entries.size());
}

void LayoutCache::clear()
{
    std::lock_guard<std::mutex> lock(m_d->mutex);
    m_d->entries.clear();
}

} // namespace jitscope
