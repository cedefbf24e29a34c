#pragma once

// What CompareWidget's files (comparewidget.cpp, compareviewport.cpp, compareselection.cpp) share. Private to
// views/compare.

namespace jitscope {

/// Sets a flag for the lifetime of the guard and restores its previous value.
class FlagGuard
{
public:
    explicit FlagGuard(bool& flag)
        : m_flag(flag)
        , m_old(flag)
    {
        m_flag = true;
    }
    ~FlagGuard() { m_flag = m_old; }

private:
    bool& m_flag;
    bool m_old;
};

} // namespace jitscope
