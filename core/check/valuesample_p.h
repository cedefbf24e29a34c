#pragma once

// Private to check/: values as the value comparison sees them (valuecheck.cpp): kept small whatever the tensor, and
// compared as torch.testing.assert_close compares. Torch types only forward-declared.

#include <QString>

#include <cstdint>
#include <vector>

namespace c10 {
struct IValue;
} // namespace c10

namespace jitscope {

/// One value as compared: a tensor (shape, dtype, its elements whole up to kWhole, else kSample of them strided, and
/// the mean of all), or numbers (an int, float or bool, or a list of them); a 0-dim tensor also gives its number, so
/// that a size the trace computes as a tensor compares with the int the script computes.
struct Seen
{
    static constexpr int64_t kWhole = 4096;
    static constexpr int64_t kSample = 1024;

    enum class Kind { Other, Tensor, Numbers } kind = Kind::Other;
    std::vector<int64_t> shape;
    QString dtype; ///< "float32", as torch names it
    bool floating = false;
    std::vector<double> data; ///< flattened
    bool whole = true;
    double mean = 0;
    std::vector<double> numbers; ///< Numbers; a tensor of one element: that element
    bool list = false;

    /// "float32[1x3x63] mean=... min=... max=...", "float32[3] [1, 2, 3]", "float64 0.5", "[2, 4]", "62".
    QString text() const;
};

Seen see(const c10::IValue& v);

inline bool comparable(const Seen& s)
{
    return s.kind != Seen::Kind::Other;
}

/// Whether two values can be told apart at all: both known, and of one form (a size list against an int is
/// another overload of the same op, aten::size(x) against aten::size(x, 1)).
bool comparablePair(const Seen& a, const Seen& b);

/// As torch.testing.assert_close compares (@p b the expected side): shapes, then values within rtol/atol.
bool close(const Seen& a, const Seen& b, double rtol, double atol);

/// A value cheaply, to tell whether a node took the value another run's node took: a tensor by its shape, mean and
/// a few strided elements; numbers whole; a list of tensors by its length and its first elements' prints.
struct Print
{
    enum class Kind { Other, Tensor, Numbers, Tensors } kind = Kind::Other;
    std::vector<int64_t> shape;
    double mean = 0;
    std::vector<double> probe; ///< Tensor: strided elements; Numbers: the numbers
    std::vector<Print> items;
    size_t count = 0;
};

Print print(const c10::IValue& v);

/// Whether two prints may be of the same value (Other: nothing to tell them apart by).
bool samePrint(const Print& a, const Print& b, double rtol, double atol);

} // namespace jitscope
