#pragma once

#include <QString>

namespace jitscope {

/// `check --self-check`: one recorded call traced again by JitScope's own executor.
struct SelfCheck
{
    QString status; ///< "agrees", "defect", "skipped"
    QString reason; ///< skipped: why; defect: which set
    int set = -1; ///< defect: the input set (0-based)
    int line = -1; ///< defect: the first differing line of the canonical dumps (0-based)
    bool inputs = false; ///< defect: that line is the graph's signature (its inputs), not a node
    QString jitscope; ///< defect: that line in JitScope's trace, and in PyTorch's
    QString pytorch;
    int sets = 0; ///< sets compared
};

/// One line (a defect: three) saying what the self-check found, as `check --self-check` prints it.
QString selfCheckText(const SelfCheck& check);

} // namespace jitscope
