#pragma once

class QWidget;

namespace jitscope {

/// The dark theme: the application palette and the graph colours of every graph under @p root (View > Dark Theme).
/// Back to light restores the palette the application had before. False when there was nothing to change.
bool applyDarkTheme(bool dark, QWidget* root);

} // namespace jitscope
